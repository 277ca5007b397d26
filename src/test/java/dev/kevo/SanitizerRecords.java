package dev.kevo;

import dev.kevo.cuda.CompileCache;
import dev.kevo.data.JudgedBuild;
import dev.kevo.data.PlanJudgement;
import dev.kevo.data.Precision;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Verdict;
import dev.kevo.store.RecordSeal;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.store.SourceHash;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

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
        return builder(source, verdict, detail).build();
    }

    private static Sanitized.Builder builder(String source, Verdict verdict, String detail) {
        return Sanitized.builder(verdict).detail(detail)
                .tools(verdict.passed() ? List.of("memcheck", "racecheck", "synccheck", "initcheck") : List.of("memcheck"))
                .shapes(List.of("32x128")).seconds(12.5).device("0 NVIDIA H100 80GB HBM3")
                .sanitizer("Version 2025.3.1.0 (/usr/local/cuda/bin/compute-sanitizer)")
                .sourceHash(SourceHash.of(source)).date("2026-11-26T10:00:00Z");
    }

    /**
     * Writes beside {@code kernelFile} the record of {@code verdict} over the source it holds now, as a pass after
     * {@code kevo eval --at-scale} leaves it: every plan judged in full at 132 SMs on up to 2^31-1 elements, every plan
     * sanitized, and the judged build beside it ({@code NAME.cubin}: bytes standing for a cubin, compiled for
     * {@code dtype}'s macros).
     */
    public static Path write(Path kernelFile, Verdict verdict, String detail, Precision dtype) {
        try {
            return SanitizedRecords.write(kernelFile, judged(kernelFile, verdict, detail, dtype));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The sealed record {@link #write(Path, Verdict, String, Precision)} writes, with the cubin it names written beside
     * {@code kernelFile} and the record itself not: as {@code kevo eval --sanitize --json} records it.
     */
    public static Sanitized judged(Path kernelFile, Verdict verdict, String detail, Precision dtype) {
        try {
            String source = Files.readString(kernelFile);
            KernelFile file = ContractParser.parse(kernelFile.getFileName().toString(), kernelFile, source);
            byte[] cubin = ("a cubin standing for " + kernelFile.getFileName() + " in " + dtype.id())
                    .getBytes(StandardCharsets.UTF_8);
            Files.write(SanitizedRecords.cubinBeside(kernelFile), cubin);
            List<Integer> plans = IntStream.rangeClosed(1, file.plans().size()).boxed().toList();
            List<String> options = new java.util.ArrayList<>(List.of("--std=c++17", "--gpu-architecture=sm_90"));
            file.macros(dtype).forEach((k, v) -> options.add("-D" + k + "=" + v));
            Sanitized record = builder(source, verdict, detail).plans(plans)
                    .build(new JudgedBuild("sm_90", "NVRTC 13.0", options, CompileCache.sha256Hex(cubin))).build()
                    .following(plans.stream().map(p -> new PlanJudgement(p, 3, "32x128", true, "16383x131073",
                            Integer.MAX_VALUE, List.of(132), List.of(), List.of())).toList());
            return RecordSeal.local().seal(record);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** As {@link #write(Path, Verdict, String, Precision)}, in the file's own dtype (fp32 where it implements it). */
    public static Path write(Path kernelFile, Verdict verdict, String detail) {
        KernelFile file = ContractParser.read(kernelFile);
        return write(kernelFile, verdict, detail, file.implementsDtype(Precision.FP32) ? Precision.FP32
                : file.dtypes().getFirst());
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
