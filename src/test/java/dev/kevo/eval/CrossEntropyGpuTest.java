package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.CrossEntropyReference;
import dev.kevo.task.op.CrossEntropyReference.Reduction;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * cross_entropy judged by the evaluator, constructed with the task directly: the harness's labels (one row in eight
 * ignored, every row in the constant case) and its float64 loss and dx agree with the CPU specification
 * (CrossEntropyReference) on every case, and its comparison sees one bad element of dx and a wrong loss; the seeds and
 * the own baseline pass in float32 and bf16 on the quick suite; kernels wrong on the training semantics are rejected:
 * one counting ignored rows in n, one writing 0 for the loss of no live row, one leaving ignored rows' dx unwritten.
 */
@GpuTest
class CrossEntropyGpuTest {
    private static final Path ROOT = TestFiles.root();
    /** Rows longer than two reference chunks (2048 columns), so the chunked statistics and their merge both run. */
    private static final Shape LONG = new Shape(37, 4099);
    private static final Task TASK = new Task(Operators.CROSS_ENTROPY, Precision.FP32);
    private static final Task SUM = new Task(Operators.CROSS_ENTROPY_SUM, Precision.FP32);
    private static Gpu gpu;
    private static TrustedKernels trusted;
    private static TrustedKernels trustedSum;

    @BeforeAll
    static void openOnce() {
        gpu = Gpu.open(0);
        trusted = new TrustedKernels(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), TASK);
        trustedSum = new TrustedKernels(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), SUM);
    }

    @AfterAll
    static void close() {
        if (trustedSum != null) {
            trustedSum.close();
        }
        if (trusted != null) {
            trusted.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }

    /** One shape's buffers outside an evaluation: x, labels, dx, the loss, the statistics and the check's result. */
    private record Buffers(TrustedKernels trusted, Task task, DeviceBuffer x, DeviceBuffer labels, DeviceBuffer dx,
                           DeviceBuffer loss, DeviceBuffer stats, DeviceBuffer partial, DeviceBuffer result)
            implements AutoCloseable {
        static Buffers of(Shape shape, Reduction reduction) {
            return new Buffers(reduction == Reduction.MEAN ? CrossEntropyGpuTest.trusted : trustedSum,
                    reduction == Reduction.MEAN ? TASK : SUM, gpu.alloc(shape.elements() * 4),
                    gpu.alloc(shape.rows() * 8L), gpu.alloc(shape.elements() * 4), gpu.alloc(4),
                    gpu.alloc(TrustedKernels.statsBytes(shape.rows())),
                    gpu.alloc(TrustedKernels.referenceScratchBytes(shape)), gpu.alloc(CheckCounts.BYTES));
        }

        Inputs inputs(long seed) {
            return new Inputs(List.of(x.pointer()), DevicePointer.none(), DevicePointer.none(), labels.pointer(),
                    task.scalars(seed), null);
        }

        CheckCounts compare(float[] dx, float loss, Shape shape, long seed, InputCase inputCase) {
            gpu.upload(this.dx.pointer(), dx, shape.elements() * 4);
            gpu.upload(this.loss.pointer(), new float[] {loss}, 4);
            trusted.reference(stats.pointer(), partial.pointer(), inputs(seed), shape, seed, inputCase);
            trusted.compareQueued(new Outputs(this.dx.pointer(), this.loss.pointer()), inputs(seed), stats.pointer(),
                    result.pointer(), shape, seed, inputCase, 0, task.op().tolerance(), true);
            return trusted.counts(result.pointer());
        }

        @Override
        public void close() {
            List.of(x, labels, dx, loss, stats, partial, result).forEach(DeviceBuffer::close);
        }
    }

    private static float[] rounded(double[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) v[i];
        }
        return out;
    }

    /**
     * On every case: the labels are -100 or a finite logit's column (all -100 in the constant case only; a one-row
 * shape's row live in every other case, so that timed launches time a live row), the CPU
     * specification's loss and dx on the generated x and labels pass, and each of these fails: a dx element of a live
     * row off by a hundred times its bound, a non-zero dx on an ignored row, a loss off by 1%, and (with no live row)
     * a loss of 0 instead of NaN.
     */
    @ParameterizedTest
    @MethodSource("reductionsAndCases")
    void theHarnessAgreesWithTheCpuSpecificationAndSeesOneBadOutput(Reduction reduction, InputCase inputCase) {
        Shape shape = LONG;
        long seed = 7100 + 17L * inputCase.ordinal();
        try (Buffers b = Buffers.of(shape, reduction)) {
            b.trusted().generate(b.inputs(seed), shape, seed, inputCase);
            float[] x = new float[(int) shape.elements()];
            gpu.download(b.x().pointer(), x, shape.elements() * 4);
            long[] labels = new long[shape.rows()];
            gpu.download(b.labels().pointer(), labels, shape.rows() * 8L);
            int ignored = 0;
            for (int r = 0; r < shape.rows(); r++) {
                if (labels[r] == CrossEntropyReference.IGNORE_INDEX) {
                    ignored++;
                } else {
                    assertTrue(labels[r] >= 0 && labels[r] < shape.cols()
                            && Float.isFinite(x[r * shape.cols() + (int) labels[r]]), "row " + r + ": " + labels[r]);
                }
            }
            assertEquals(inputCase == InputCase.CONSTANT, ignored == shape.rows(), inputCase + ": " + ignored);
            assertTrue(ignored > 0, "some rows ignored");
            double g = b.task().scalars(seed).get("g");
            CrossEntropyReference.Result ref = CrossEntropyReference.of(x, labels, shape.rows(), shape.cols(),
                    reduction, g);
            float[] dx = rounded(ref.dx());
            CheckCounts ok = b.compare(dx, (float) ref.loss(), shape, seed, inputCase);
            assertEquals(0, ok.violations() + ok.unwritten() + ok.nonFinite() + ok.inputChanged(), ok.toString());

            int liveRow = -1;
            int ignoredRow = -1;
            for (int r = 0; r < shape.rows(); r++) {
                if (labels[r] == CrossEntropyReference.IGNORE_INDEX) {
                    ignoredRow = ignoredRow < 0 ? r : ignoredRow;
                } else {
                    liveRow = liveRow < 0 ? r : liveRow;
                }
            }
            if (liveRow >= 0) {
                int i = liveRow * shape.cols() + 5;
                float[] off = dx.clone();
                // the bound is at most about 1e-4 |g| / n (the mean), 1e-4 |g| (the sum)
                off[i] += (float) (0.01 * Math.abs(g) / (reduction == Reduction.MEAN ? ref.live() : 1));
                CheckCounts one = b.compare(off, (float) ref.loss(), shape, seed, inputCase);
                assertEquals(1, one.violations(), "a live row's element: " + one);
                assertEquals(i, one.firstBad());
                CheckCounts loss = b.compare(dx, (float) (ref.loss() * 1.01), shape, seed, inputCase);
                assertEquals(1, loss.violations(), "a loss 1% off: " + loss);
                assertEquals(shape.elements(), loss.firstBad(), "counted at the index past dx");
            } else if (reduction == Reduction.MEAN) {
                CheckCounts zero = b.compare(dx, 0f, shape, seed, inputCase);
                assertEquals(1, zero.violations(), "no live row: the mean is NaN, not 0: " + zero);
            } else {
                CheckCounts nan = b.compare(dx, Float.NaN, shape, seed, inputCase);
                assertEquals(1, nan.violations() + nan.nonFinite(), "no live row: the sum is 0, not NaN: " + nan);
            }
            try (Buffers one = Buffers.of(new Shape(1, 100), reduction)) {
                one.trusted().generate(one.inputs(seed), new Shape(1, 100), seed, inputCase);
                long[] label = new long[1];
                gpu.download(one.labels().pointer(), label, 8);
                assertEquals(inputCase == InputCase.CONSTANT, label[0] == CrossEntropyReference.IGNORE_INDEX,
                        "a one-row shape keeps its row live in every case but constant: " + label[0]);
            }
            float[] leak = dx.clone();
            leak[ignoredRow * shape.cols() + 3] = 1e-30f;
            CheckCounts ign = b.compare(leak, (float) ref.loss(), shape, seed, inputCase);
            assertEquals(1, ign.violations(), "an ignored row's dx is exactly 0: " + ign);
        }
    }

    static Stream<Arguments> reductionsAndCases() {
        return Stream.of(Reduction.values()).flatMap(r -> Stream.of(InputCase.values()).map(c -> Arguments.of(r, c)));
    }

    private static CandidateResult judge(KernelFile file, Precision dtype) {
        return judge(file, new Task(Operators.CROSS_ENTROPY, dtype));
    }

    private static CandidateResult judge(KernelFile file, Task task) {
        EvalSettings settings = EvalSettings.load(ROOT.resolve("config/eval.yaml")).toBuilder()
                .op(task.op().id()).dtype(task.dtype()).build();
        Baseline own = new Baseline.File(ContractParser.read(ROOT.resolve("evaluator/baselines/"
                + task.op().ownBaseline() + ".cu")));
        try (Evaluator evaluator = new Evaluator(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(),
                SuiteFile.load(ROOT.resolve("evaluator/suites/quick.yaml")), own, settings, task)) {
            return evaluator.evaluate(file, 7, Evaluator.Run.plain(), Phase.Listener.NONE);
        }
    }

    static List<Precision> dtypes() {
        return List.of(Precision.FP32, Precision.BF16);
    }

    static List<Precision> everyDtype() {
        return Precision.SUPPORTED;
    }

    /** The seeds and the own baseline pass every case of the quick suite, timed against the floor. */
    @ParameterizedTest
    @MethodSource("dtypes")
    void theSeedAndTheBaselinePass(Precision dtype) {
        for (String file : List.of("seeds/cross_entropy/online.cu", "seeds/cross_entropy/held_rows.cu",
                "evaluator/baselines/cross_entropy_two_pass.cu")) {
            CandidateResult r = judge(ContractParser.read(ROOT.resolve(file)), dtype);
            assertEquals(Verdict.PASS, r.verdict(), file + " " + dtype.id() + ": " + r.detail());
            assertTrue(r.shapes().stream().allMatch(s -> s.floorFraction() != null && s.floorFraction() > 0), file);
        }
    }

    /**
     * The built-in agent's default genome rendered for cross_entropy (softmax's row kernels with the loss's epilogue,
     * between the count and the loss's sum) passes in every dtype: every plan is checked on a shape of its own, so the
     * register, cluster, loop and wide-loop kernels all run.
     */
    @ParameterizedTest
    @MethodSource("everyDtype")
    void theDefaultGenomePassesInEveryDtype(Precision dtype) {
        CandidateResult r = judge(RenderedGenome.defaultFor(new Task(Operators.CROSS_ENTROPY, dtype)), dtype);
        assertEquals(Verdict.PASS, r.verdict(), dtype.id() + ": " + r.detail());
        assertTrue(r.shapes().stream().allMatch(s -> s.floorFraction() != null && s.floorFraction() > 0));
    }

    /**
     * cross_entropy_sum: its seed, its own baseline and the default genome's file pass in float32 and bf16; its
     * baseline is rejected with the mean's habit of a NaN loss where no row is live (torch's sum of nothing is 0) and
     * with g left out of dx.
     */
    @ParameterizedTest
    @MethodSource("dtypes")
    void theSumsKernelsPassAndItsWrongOnesAreRejected(Precision dtype) throws IOException {
        Task sum = new Task(Operators.CROSS_ENTROPY_SUM, dtype);
        for (KernelFile file : List.of(ContractParser.read(ROOT.resolve("seeds/cross_entropy_sum/held_rows.cu")),
                ContractParser.read(ROOT.resolve("evaluator/baselines/cross_entropy_sum_two_pass.cu")),
                RenderedGenome.defaultFor(sum))) {
            CandidateResult r = judge(file, sum);
            assertEquals(Verdict.PASS, r.verdict(), file.name() + " " + dtype.id() + ": " + r.detail());
        }
        String base = Files.readString(ROOT.resolve("evaluator/baselines/cross_entropy_sum_two_pass.cu"));
        for (String[] edit : List.of(
                new String[] {"loss[0] = (float)ws[0];", "loss[0] = ws[0] == 0.0 ? NAN : (float)ws[0];"},
                new String[] {"dr[c] = kevo_from_float<KEVO_Y>(g * (c == label ? p - 1.0f : p));",
                        "dr[c] = kevo_from_float<KEVO_Y>(c == label ? p - 1.0f : p);"})) {
            assertTrue(base.contains(edit[0]), edit[0]);
            CandidateResult r = judge(ContractParser.parse("wrong_sum.cu", null, base.replace(edit[0], edit[1])), sum);
            assertTrue(r.verdict() == Verdict.WRONG_RESULT || r.verdict() == Verdict.NAN_OUTPUT,
                    edit[1] + ": " + r.verdict() + " " + r.detail());
        }
    }

    /** The baseline with one edit that breaks the training semantics. */
    private static KernelFile broken(String name, String from, String to) throws IOException {
        String source = Files.readString(ROOT.resolve("evaluator/baselines/cross_entropy_two_pass.cu"));
        assertTrue(source.contains(from), from);
        return ContractParser.parse(name, null, source.replace(from, to));
    }

    /**
     * Kernels wrong where training is: n counting ignored rows (the mean over every row), a loss of 0 where no row is
     * live (torch gives NaN), and ignored rows' dx left unwritten.
     */
    @Test
    void kernelsWrongOnIgnoredRowsAreRejected() throws IOException {
        CandidateResult counted = judge(broken("counts_ignored.cu", "n += labels[r] != IGNORE_INDEX;", "n += 1;"),
                Precision.FP32);
        assertEquals(Verdict.WRONG_RESULT, counted.verdict(), counted.detail());
        CandidateResult zero = judge(broken("zero_loss.cu", "loss[0] = (float)(ws[1] / ws[0]);",
                "loss[0] = ws[0] > 0.0 ? (float)(ws[1] / ws[0]) : 0.0f;"), Precision.FP32);
        assertEquals(Verdict.WRONG_RESULT, zero.verdict(), zero.detail());
        assertTrue(zero.detail().contains("`loss`"), zero.detail());
        CandidateResult skipped = judge(broken("skips_ignored.cu",
                "for (int c = threadIdx.x; c < cols; c += blockDim.x) dr[c] = kevo_from_float<KEVO_Y>(0.0f);", ""),
                Precision.FP32);
        assertEquals(Verdict.UNWRITTEN_OUTPUT, skipped.verdict(), skipped.detail());
    }
}
