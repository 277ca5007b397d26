package dev.kevo.cli;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.TestFiles;
import dev.kevo.cuda.Gpu;
import java.util.List;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line as a user meets it: exit codes and one-line errors, no stack traces unless asked. */
class MainTest {
    private static final int STANDARD_SHAPES = dev.kevo.config.SuiteFile.load(dev.kevo.TestFiles.root()
            .resolve("evaluator/suites/standard.yaml")).shapes().size();


    private static String seed(String name) {
        return TestFiles.root().resolve("seeds").resolve(name).toString();
    }

    @NeedsNvrtc
    @Test
    void checkPassesEverySeedWithoutAGpu() {
        Outcome o = kevo("check", seed("online.cu"), seed("register_rows.cu"), seed("block_stats.cu"));
        assertEquals(0, o.code(), o.err());
        assertEquals(3, o.out().lines().filter(l -> l.contains(": ok;")).count(), o.out());
        // which plan each of the standard suite's shapes gets, plans counted from 1
        List<String> online = o.out().lines().dropWhile(l -> !l.contains("online.cu: ok;")).skip(1)
                .takeWhile(l -> l.startsWith("  plan ")).toList();
        assertEquals(STANDARD_SHAPES, online.stream().filter(l -> !l.contains("no shape of suite")).mapToInt(l -> l.substring(l.indexOf(": ") + 2).split(" ").length).sum(),
                o.out());
        assertTrue(online.getFirst().startsWith("  plan 1 of "), o.out());
    }

    /**
     * log_softmax's seed and its own baseline pass {@code kevo check --op log_softmax} in every dtype they declare, and
     * each operator's seed checked as the other is a contract error in one line.
     */
    @NeedsNvrtc
    @Test
    @Exhaustive
    void checkPassesTheLogSoftmaxSeedAndBaselineUnderItsOp() {
        String logSeed = seed("log_softmax/online.cu");
        String baseline = TestFiles.root().resolve("evaluator/baselines/log_softmax_two_pass.cu").toString();
        for (String dtype : List.of("fp32", "bf16", "fp16", "bf16-fp32")) {
            Outcome o = kevo("check", "--op", "log_softmax", "--dtype", dtype, logSeed, baseline);
            assertEquals(0, o.code(), dtype + ": " + o.err());
            assertEquals(2, o.out().lines().filter(l -> l.contains(": ok;")).count(), o.out());
            assertTrue(o.out().contains("kernels: log_softmax_online"), o.out());
        }
        Outcome asSoftmax = kevo("check", logSeed);
        assertEquals(1, asSoftmax.code(), asSoftmax.out());
        assertEquals(1, asSoftmax.err().strip().lines().count(), asSoftmax.err());
        assertTrue(asSoftmax.err().contains("contract-error: online.cu implements log_softmax"), asSoftmax.err());
        Outcome asLog = kevo("check", "--op", "log_softmax", seed("online.cu"));
        assertEquals(1, asLog.code(), asLog.out());
        assertTrue(asLog.err().contains("contract-error: online.cu implements softmax"), asLog.err());
    }

    @NeedsNvrtc
    @Test
    void checkReportsACompileErrorAsFileAndLine(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("typo.cu");
        Files.writeString(bad, """
                /*@kevo {"plans": [{"launches": [{"kernel": "k", "grid": "rows", "block": 32, "args": ["x", "y"]}]}]} */
                extern "C" __global__ void k(const float* x, float* y) {
                    y[threadIdx.x] = undefined_name;
                }
                """);
        Outcome o = kevo("check", bad.toString());
        assertEquals(1, o.code());
        assertTrue(o.err().contains("typo.cu:3: error"), o.err());
        assertFalse(o.err().contains("\tat "), "no stack trace: " + o.err());
    }

    @NeedsNvrtc
    @Test
    void checkNamesAKernelThePlanLaunchesButTheFileLacks(@TempDir Path dir) throws IOException {
        Path bad = dir.resolve("renamed.cu");
        Files.writeString(bad, """
                /*@kevo {"plans": [{"launches": [{"kernel": "softmax", "grid": 1, "block": 32, "args": []}]}]} */
                extern "C" __global__ void softmax_v2() {}
                """);
        Outcome o = kevo("check", bad.toString());
        assertEquals(1, o.code());
        assertTrue(o.err().contains("'softmax'"), o.err());
    }

    @Test
    void aMissingFileIsAUsageErrorOfOneLine() {
        Outcome o = kevo("eval", "no/such/kernel.cu");
        assertEquals(2, o.code());
        assertEquals("kevo: no/such/kernel.cu: no such file", o.err().strip());
    }

    @Test
    void anUnknownSuiteIsAUsageError() {
        Outcome o = kevo("check", "--suite", "nosuch", seed("online.cu"));
        assertEquals(2, o.code());
        assertTrue(o.err().startsWith("kevo: no suite 'nosuch'"), o.err());
    }

    @Test
    void anUnknownOptionIsAUsageError() {
        Outcome o = kevo("eval", "--frobnicate", seed("online.cu"));
        assertEquals(2, o.code());
        assertTrue(o.err().contains("--frobnicate"), o.err());
    }

    @Test
    void verboseAddsTheStackTrace() {
        Outcome o = kevo("check", "--suite", "nosuch", "--verbose", seed("online.cu"));
        assertEquals(2, o.code());
        assertTrue(o.err().contains("\tat "), o.err());
    }

    @Test
    void evalWithoutAGpuSaysSoAndExitsThree() {
        assumeTrue(Gpu.count() == 0, "a GPU is present: this test is about machines without one");
        Outcome o = kevo("eval", seed("online.cu"));
        assertEquals(3, o.code(), o.err());
        assertTrue(o.err().startsWith("kevo: no "), o.err());
        assertEquals(1, o.err().strip().lines().count(), o.err());
    }
}
