package dev.kevo.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kevo.KevoException;
import dev.kevo.data.Sanitized;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A kernel file's sanitizer record, kept beside it as {@code NAME.sanitized.json} ({@code k.cu}'s is
 * {@code k.sanitized.json}; a campaign's mutants' sit in the campaign folder the same way): where
 * {@code kevo eval --sanitize} and a campaign's champion put it, and where {@code kevo export} looks. It travels
 * with the file, and its source hash says which bytes it covers, so an edited file has no record. kevo seals what it
 * writes ({@link RecordSeal}) and counts only records whose seal verifies on this host.
 */
public final class SanitizedRecords {
    public static final String SUFFIX = ".sanitized.json";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SanitizedRecords() {
    }

    /** Where the record of {@code kernelFile} is. */
    public static Path beside(Path kernelFile) {
        String name = kernelFile.getFileName().toString().replaceFirst("\\.cu$", "");
        return kernelFile.resolveSibling(name + SUFFIX);
    }

    /** Writes the record of {@code kernelFile}, for the source it holds now, sealed by this host's kevo. */
    public static Path write(Path kernelFile, Sanitized record) throws IOException {
        Path target = beside(kernelFile);
        AtomicFiles.write(target, JSON.writeValueAsBytes(RecordSeal.local().seal(record)));
        return target;
    }

    /** The record beside {@code kernelFile}, if there is one; one that does not parse is an input error. */
    public static Optional<Sanitized> read(Path kernelFile) {
        Path file = beside(kernelFile);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(file.toFile(), Sanitized.class));
        } catch (JsonProcessingException e) {
            throw KevoException.input(file + ": damaged, not a readable sanitizer record (" + e.getOriginalMessage()
                    + ")");
        } catch (IOException e) {
            throw KevoException.input(file + ": cannot read (" + e.getMessage() + ")");
        }
    }

    /**
     * The record beside {@code kernelFile} when it covers exactly {@code source}, which the file holds, and this
     * host's kevo sealed it: the one kind kevo counts.
     */
    public static Optional<Sanitized> covering(Path kernelFile, String source) {
        return read(kernelFile).filter(r -> unverified(r, source, RecordSeal.local()).isEmpty());
    }

    /**
     * The record beside {@code kernelFile} as it is, for showing: its one line, marked where it does not count here
     * (a campaign recorded before seals keeps its records readable). Empty where there is none, or it covers other
     * bytes.
     */
    public static Optional<String> shown(Path kernelFile, String source) {
        return read(kernelFile).filter(r -> SourceHash.matches(source, r.sourceHash())
                        || SourceHash.isLegacy(r.sourceHash()))
                .map(r -> r.line() + unverified(r, source, RecordSeal.local()).map(why -> " [unverified: " + why + "]")
                        .orElse(""));
    }

    /**
     * Why {@code record} does not count as compute-sanitizer's word on {@code source} here, in a phrase, or empty
     * when it does: it names exactly these bytes (a legacy hash never does) and its seal verifies ({@link RecordSeal}).
     */
    public static Optional<String> unverified(Sanitized record, String source, RecordSeal seal) {
        if (SourceHash.isLegacy(record.sourceHash())) {
            return Optional.of("it names the source by a legacy hash (comments stripped), which kevo no longer "
                    + "counts as a match");
        }
        if (!SourceHash.matches(source, record.sourceHash())) {
            return Optional.of("it covers other bytes (" + record.sourceHash() + ")");
        }
        return seal.problem(record);
    }
}
