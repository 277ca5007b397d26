package dev.kevo.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kevo.KevoException;
import dev.kevo.cuda.CompileCache;
import dev.kevo.data.JudgedBuild;
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
    public static final String CUBIN_SUFFIX = ".cubin";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private SanitizedRecords() {
    }

    /** Where the record of {@code kernelFile} is. */
    public static Path beside(Path kernelFile) {
        String name = kernelFile.getFileName().toString().replaceFirst("\\.cu$", "");
        return kernelFile.resolveSibling(name + SUFFIX);
    }

    /**
     * Writes the record of {@code kernelFile}, for the source it holds now, sealed by this host's kevo; and beside it
     * the cubin the pass ran ({@link #cubinBeside}), from this host's cache of judged builds, where it kept it.
     */
    public static Path write(Path kernelFile, Sanitized record) throws IOException {
        Path target = beside(kernelFile);
        keepCubin(kernelFile, record);
        AtomicFiles.write(target, JSON.writeValueAsBytes(RecordSeal.local().seal(record)));
        return target;
    }

    /**
     * Copies beside {@code kernelFile} the cubin {@code record}'s pass ran ({@link #cubinBeside}), from this host's
     * cache of judged builds, where it kept it: a record kept inside a mutant's own (a campaign under
     * {@code sanitize: every}) needs it beside the mutant as much as one written beside it.
     */
    public static void keepCubin(Path kernelFile, Sanitized record) throws IOException {
        if (record == null || record.build() == null) {
            return;
        }
        Optional<byte[]> cubin = CompileCache.fromEnvironment(System.getenv()).judged(record.build().sha256());
        if (cubin.isPresent()) {
            AtomicFiles.write(cubinBeside(kernelFile), cubin.get());
        }
    }

    /** Where the cubin a kernel file's record names is kept: {@code k.cu}'s is {@code k.cubin}. */
    public static Path cubinBeside(Path kernelFile) {
        String name = kernelFile.getFileName().toString().replaceFirst("\\.cu$", "");
        return kernelFile.resolveSibling(name + CUBIN_SUFFIX);
    }

    /**
     * The cubin beside {@code kernelFile} when it is exactly {@code build}'s (its SHA-256 matches), else why not, in a
     * phrase.
     */
    public static Judged judgedCubin(Path kernelFile, JudgedBuild build) {
        Path file = cubinBeside(kernelFile);
        if (build == null) {
            return new Judged(null, "the record names no judged build (it predates builds)");
        }
        if (!Files.isRegularFile(file)) {
            return new Judged(null, "no judged cubin " + file + " (kevo keeps the cubin a sanitizer's pass ran, where "
                    + "its cache is on)");
        }
        try {
            byte[] cubin = Files.readAllBytes(file);
            return CompileCache.sha256Hex(cubin).equals(build.sha256()) ? new Judged(cubin, null)
                    : new Judged(null, file + " is not the build kevo judged (its SHA-256 is not " + build.sha256()
                            + ")");
        } catch (IOException e) {
            return new Judged(null, file + ": cannot read (" + e.getMessage() + ")");
        }
    }

    /** A judged cubin, or why there is none; exactly one of the two is null. */
    public record Judged(byte[] cubin, String missing) {
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
