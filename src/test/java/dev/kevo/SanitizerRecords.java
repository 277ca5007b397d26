package dev.kevo;

import dev.kevo.data.Sanitized;
import dev.kevo.data.Verdict;
import dev.kevo.store.RecordSeal;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.store.SourceHash;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Sanitizer records as {@code kevo eval --sanitize} writes them, for tests that need one without a GPU. */
public final class SanitizerRecords {
    private SanitizerRecords() {
    }

    /**
     * A record of {@code verdict} over {@code source}: all four tools for a pass, memcheck alone for a finding, sealed
     * by kevo's own code as this host's kevo seals what it writes.
     */
    public static Sanitized of(String source, Verdict verdict, String detail) {
        return RecordSeal.local().seal(unsealed(source, verdict, detail));
    }

    /** The same record as a hand, or a kevo from before seals, would write it: no version, host or seal. */
    public static Sanitized unsealed(String source, Verdict verdict, String detail) {
        return Sanitized.builder(verdict).detail(detail)
                .tools(verdict.passed() ? List.of("memcheck", "racecheck", "synccheck", "initcheck") : List.of("memcheck"))
                .shapes(List.of("32x128")).seconds(12.5).device("0 NVIDIA H100 80GB HBM3")
                .sanitizer("Version 2025.3.1.0 (/usr/local/cuda/bin/compute-sanitizer)")
                .sourceHash(SourceHash.of(source)).date("2026-11-26T10:00:00Z").build();
    }

    /** Writes beside {@code kernelFile} the record of {@code verdict} over the source it holds now. */
    public static Path write(Path kernelFile, Verdict verdict, String detail) {
        try {
            return SanitizedRecords.write(kernelFile, of(Files.readString(kernelFile), verdict, detail));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes beside {@code kernelFile} the record of a clean pass over its source. */
    public static Path clean(Path kernelFile) {
        return write(kernelFile, Verdict.PASS, null);
    }

    /** A copy of {@code kernelFile} in {@code dir}, with a clean record beside it. */
    public static Path cleanCopy(Path kernelFile, Path dir) {
        try {
            Path copy = Files.copy(kernelFile, dir.resolve(kernelFile.getFileName()));
            clean(copy);
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
