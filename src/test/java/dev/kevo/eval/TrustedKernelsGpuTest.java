package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.InputCase;
import dev.kevo.data.Tolerance;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Operators;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** kevo's own GPU reference and checker, held to the CPU float64 definition of the task. */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TrustedKernelsGpuTest {
    /** Rows longer than one reference chunk, so the chunked reference and its merge are both exercised. */
    private static final Shape SHAPE = new Shape(37, 20011);
    private Gpu gpu;
    private TrustedKernels trusted;

    @BeforeAll
    void open() {
        gpu = Gpu.open(0);
        trusted = new TrustedKernels(gpu, Nvrtc.load(Optional.empty()), dev.kevo.cuda.CompileCache.none());
    }

    @AfterAll
    void close() {
        if (trusted != null) {
            trusted.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }

    @ParameterizedTest
    @EnumSource(InputCase.class)
    void gpuReferenceAgreesWithCpuFloat64AndTheCheckerSeesOneBadElement(InputCase inputCase) {
        int n = (int) SHAPE.elements();
        try (DeviceBuffer x = gpu.alloc(n * 4L); DeviceBuffer y = gpu.alloc(n * 4L);
             DeviceBuffer stats = gpu.alloc(SHAPE.rows() * 16L); DeviceBuffer result = gpu.alloc(CheckCounts.BYTES);
             DeviceBuffer scratch = gpu.alloc(TrustedKernels.referenceScratchBytes(SHAPE))) {
            long seed = 1234 + inputCase.ordinal();
            trusted.generate(x.pointer(), SHAPE, seed, inputCase);
            float[] input = new float[n];
            gpu.download(x.pointer(), input, n * 4L);
            double[] cpu = Operators.SOFTMAX.reference(input, SHAPE.rows(), SHAPE.cols());

            trusted.reference(stats.pointer(), scratch.pointer(), Inputs.of(x.pointer()), SHAPE);
            double[] rowStats = new double[SHAPE.rows() * 2];
            gpu.download(stats.pointer(), rowStats, rowStats.length * 8L);
            for (int r = 0; r < SHAPE.rows(); r++) {
                double max = Double.NEGATIVE_INFINITY;
                for (int c = 0; c < SHAPE.cols(); c++) {
                    max = Math.max(max, input[r * SHAPE.cols() + c]);
                }
                assertEquals(max, rowStats[2 * r], "row " + r + " max");
                double gpuFirst = Math.exp(input[r * SHAPE.cols()] - rowStats[2 * r]) / rowStats[2 * r + 1];
                assertEquals(cpu[r * SHAPE.cols()], gpuFirst, 1e-12 * Math.max(1e-300, cpu[r * SHAPE.cols()]) + 1e-300,
                        "row " + r);
            }

            float[] out = new float[n];
            for (int i = 0; i < n; i++) {
                out[i] = (float) cpu[i];
            }
            int bad = n / 2 + 17;
            out[bad] = out[bad] * 1.01f + 1e-3f;
            gpu.upload(y.pointer(), out, n * 4L);
            CheckCounts counts = trusted.compare(y.pointer(), Inputs.of(x.pointer()), stats.pointer(), result.pointer(), SHAPE,
                    seed, inputCase, Tolerance.defaults());
            assertEquals(1, counts.violations(), "one perturbed element");
            assertEquals(bad, counts.firstBad());
            assertEquals(0, counts.unwritten() + counts.nonFinite() + counts.inputChanged());
            assertTrue(counts.maxAbsError() >= 1e-3, "max error " + counts.maxAbsError());
        }
    }

    @org.junit.jupiter.api.Test
    void theFlushAtEvictLastPriorityAndTheDemotionRunAndLeaveMemoryAsItWas() {
        long bytes = 8L << 20;
        long flushBytes = Math.max(2 * gpu.info().l2Bytes(), 64L << 20) / 128 * 128;
        try (DeviceBuffer data = gpu.alloc(bytes); DeviceBuffer flush = gpu.alloc(flushBytes);
             DeviceBuffer sink = gpu.alloc(8)) {
            gpu.fill(data.pointer(), 0x3F8CCCCD, bytes / 4);  // 1.1f
            gpu.fill(flush.pointer(), 0x3F800000, flushBytes / 4);
            trusted.flushL2(flush.pointer(), flushBytes, sink.pointer(), true);
            trusted.flushL2(flush.pointer(), flushBytes, sink.pointer(), false);
            trusted.demote(data.pointer(), bytes, flush.pointer(), flushBytes, sink.pointer(), 8);
            gpu.synchronize();
            int[] words = new int[(int) (bytes / 4)];
            gpu.download(data.pointer(), words, bytes);
            for (int i = 0; i < words.length; i += 4099) {
                assertEquals(0x3F8CCCCD, words[i], "word " + i);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aSaltRaisesOneElementPerRowWhichTheReferenceAndTheCheckerFollowAndSaltZeroRestores() {
        int n = (int) SHAPE.elements();
        long seed = 77;
        long salt = 0x1234_5678_9abcL | 1;
        try (DeviceBuffer x = gpu.alloc(n * 4L); DeviceBuffer y = gpu.alloc(n * 4L);
             DeviceBuffer stats = gpu.alloc(SHAPE.rows() * 16L); DeviceBuffer result = gpu.alloc(CheckCounts.BYTES);
             DeviceBuffer scratch = gpu.alloc(TrustedKernels.referenceScratchBytes(SHAPE))) {
            trusted.generate(x.pointer(), SHAPE, seed, InputCase.NORMAL_1);
            float[] generated = new float[n];
            gpu.download(x.pointer(), generated, n * 4L);
            trusted.perturb(x.pointer(), SHAPE, seed, InputCase.NORMAL_1, 0, salt);
            float[] salted = new float[n];
            gpu.download(x.pointer(), salted, n * 4L);
            for (int r = 0; r < SHAPE.rows(); r++) {
                int changed = 0;
                for (int c = 0; c < SHAPE.cols(); c++) {
                    int i = r * SHAPE.cols() + c;
                    if (salted[i] != generated[i]) {
                        changed++;
                        // just above what normal-1 reaches (5.77), not far above the row
                        assertTrue(salted[i] >= 6 && salted[i] < 7, "raised value " + salted[i]);
                    }
                }
                assertEquals(1, changed, "row " + r);
            }
            double[] cpu = Operators.SOFTMAX.reference(salted, SHAPE.rows(), SHAPE.cols());
            float[] out = new float[n];
            for (int i = 0; i < n; i++) {
                out[i] = (float) cpu[i];
            }
            gpu.upload(y.pointer(), out, n * 4L);
            trusted.reference(stats.pointer(), scratch.pointer(), Inputs.of(x.pointer()), SHAPE);
            trusted.compareQueued(Outputs.of(y.pointer()),
                    Inputs.of(x.pointer()), stats.pointer(), result.pointer(), SHAPE, seed,
                    InputCase.NORMAL_1, salt, Tolerance.defaults(), true);
            CheckCounts salty = trusted.counts(result.pointer());
            assertEquals(0, salty.violations() + salty.inputChanged() + salty.unwritten() + salty.nonFinite());
            // Checked as the unsalted input, the raised elements are changed input, one a row.
            trusted.reference(stats.pointer(), scratch.pointer(), Inputs.of(x.pointer()), SHAPE);
            CheckCounts plain = trusted.compare(y.pointer(), Inputs.of(x.pointer()), stats.pointer(), result.pointer(), SHAPE,
                    seed, InputCase.NORMAL_1, Tolerance.defaults());
            assertEquals(SHAPE.rows(), plain.inputChanged(), plain.toString());
            // An answer of the unsalted input (another launch's) is wrong against this launch's reference.
            trusted.generate(x.pointer(), SHAPE, seed, InputCase.NORMAL_1);
            double[] unsalted = Operators.SOFTMAX.reference(generated, SHAPE.rows(), SHAPE.cols());
            float[] stale = new float[n];
            for (int i = 0; i < n; i++) {
                stale[i] = (float) unsalted[i];
            }
            gpu.upload(y.pointer(), stale, n * 4L);
            trusted.perturb(x.pointer(), SHAPE, seed, InputCase.NORMAL_1, 0, salt);
            trusted.reference(stats.pointer(), scratch.pointer(), Inputs.of(x.pointer()), SHAPE);
            trusted.compareQueued(Outputs.of(y.pointer()),
                    Inputs.of(x.pointer()), stats.pointer(), result.pointer(), SHAPE, seed,
                    InputCase.NORMAL_1, salt, Tolerance.defaults(), true);
            CheckCounts replayed = trusted.counts(result.pointer());
            assertEquals(0, replayed.inputChanged(), replayed.toString());
            assertTrue(replayed.violations() > SHAPE.cols(), "a replayed answer is wrong across rows: " + replayed);
            trusted.perturb(x.pointer(), SHAPE, seed, InputCase.NORMAL_1, salt, 0);
            float[] restored = new float[n];
            gpu.download(x.pointer(), restored, n * 4L);
            org.junit.jupiter.api.Assertions.assertArrayEquals(generated, restored);
        }
    }

    /**
     * The fused work around a timed launch does what the separate launches did: prepare salts x and poisons y and the
     * workspace (the workspace's odd word count included),
     * demote leaves memory as it was and poisons the row statistics, cleared slots count like fresh ones, a one-chunk
     * reference (written straight to stats) agrees with the CPU, and the merge leaves its scratch poisoned.
     */
    @org.junit.jupiter.api.Test
    void theFusedTimedLaunchWorkDoesWhatTheSeparateLaunchesDid() {
        Shape shortRows = new Shape(64, 1000);
        int n = (int) shortRows.elements();
        long seed = 91;
        long salt = 0x5eed_5a17L | 1;
        try (DeviceBuffer x = gpu.alloc(n * 4L); DeviceBuffer y = gpu.alloc(n * 4L);
             DeviceBuffer stats = gpu.alloc(Math.max(SHAPE.rows(), shortRows.rows()) * 16L);
             DeviceBuffer slots = gpu.alloc(3L * CheckCounts.BYTES);
             DeviceBuffer scratch = gpu.alloc(TrustedKernels.referenceScratchBytes(SHAPE));
             DeviceBuffer bigX = gpu.alloc(SHAPE.elements() * 4L);
             DeviceBuffer ws = gpu.alloc(4L * 1027)) {
            trusted.generate(x.pointer(), shortRows, seed, InputCase.NORMAL_1);
            gpu.fill(ws.pointer(), 0, 1027);
            trusted.prepare(x.pointer(), shortRows, seed, InputCase.NORMAL_1, 0, salt, y.pointer(), n, ws.pointer(),
                    1023);
            int[] workspaceWords = new int[1027];
            gpu.download(ws.pointer(), workspaceWords, 4L * 1027);
            for (int i = 0; i < 1027; i++) {
                assertEquals(i < 1023 ? Workbench.POISON_WS : 0, workspaceWords[i], "workspace word " + i);
            }
            float[] salted = new float[n];
            gpu.download(x.pointer(), salted, n * 4L);
            int[] poisoned = new int[n];
            gpu.download(y.pointer(), poisoned, n * 4L);
            for (int i = 0; i < n; i++) {
                assertEquals(Workbench.POISON_Y, poisoned[i], "y word " + i);
            }
            // normal-1 reaches at most 5.77 (24-bit uniforms); the salted element sits in [6, 7), above every other
            long raised = 0;
            for (float v : salted) {
                raised += v >= 6 ? 1 : 0;
                assertTrue(v < 7, "raised just above the row, not far: " + v);
            }
            assertEquals(shortRows.rows(), raised, "one raised element per row");

            trusted.reference(stats.pointer(), scratch.pointer(), Inputs.of(x.pointer()), shortRows);
            double[] cpu = Operators.SOFTMAX.reference(salted, shortRows.rows(), shortRows.cols());
            float[] out = new float[n];
            for (int i = 0; i < n; i++) {
                out[i] = (float) cpu[i];
            }
            out[n - 1] = 0.5f;
            gpu.upload(y.pointer(), out, n * 4L);
            gpu.fill(slots.pointer(), 0x12345678, 3 * CheckCounts.BYTES / 4);  // junk the clear must remove
            trusted.clearChecks(slots.pointer(), 3);
            trusted.compareQueued(Outputs.of(y.pointer()),
                    Inputs.of(x.pointer()), stats.pointer(), slots.at(CheckCounts.BYTES), shortRows,
                    seed, InputCase.NORMAL_1, salt, Tolerance.defaults(), false);
            java.util.List<CheckCounts> counts = trusted.counts(slots.pointer(), 3);
            assertEquals(1, counts.get(1).violations(), "one wrong element against the one-chunk reference");
            assertEquals(n - 1, counts.get(1).firstBad());
            assertEquals(0, counts.get(1).inputChanged() + counts.get(1).unwritten());
            assertEquals(-1, counts.get(0).firstBad(), "a cleared slot: first_bad at ~0");
            assertEquals(0, counts.get(2).violations() + counts.get(2).unwritten());

            trusted.demote(java.util.List.of(new TrustedKernels.Range(x.pointer(), n * 4L),
                    new TrustedKernels.Range(y.pointer(), n * 4L)), stats.pointer(), shortRows.rows() * 4L);
            int[] statWords = new int[shortRows.rows() * 4];
            gpu.download(stats.pointer(), statWords, statWords.length * 4L);
            for (int w : statWords) {
                assertEquals(Workbench.POISON_WS, w);
            }
            float[] after = new float[n];
            gpu.download(x.pointer(), after, n * 4L);
            org.junit.jupiter.api.Assertions.assertArrayEquals(salted, after, "demotion leaves data as it was");

            trusted.generate(bigX.pointer(), SHAPE, seed, InputCase.NORMAL_1);
            trusted.reference(stats.pointer(), scratch.pointer(), Inputs.of(bigX.pointer()), SHAPE);
            int[] scratchWords = new int[(int) (TrustedKernels.referenceScratchBytes(SHAPE) / 4)];
            gpu.download(scratch.pointer(), scratchWords, scratchWords.length * 4L);
            for (int w : scratchWords) {
                assertEquals(Workbench.POISON_WS, w, "the merge poisons the chunks it consumed");
            }
        }
    }
}
