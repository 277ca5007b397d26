package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kevo.GpuTest;
import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Cudnn;
import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Suite;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * softmax_backward and log_softmax_backward judged end to end by the evaluator, constructed with the task directly:
 * the harness's y and dy as the operators define
 * them, its reference the formula on them and its comparison seeing one bad element, dy's salt; the seeds and the own
 * baselines passing in every dtype on the quick suite, timed against the floor; cuDNN's backward as the baseline; a
 * kernel that takes dy's mean for the dot product rejected as wrong, and one that replays an earlier launch's output
 * caught by the salts of the timed launches; the built-in agent's genome rendered for each. First run on the H100 on
 * 2026-11-28.
 */
@GpuTest
class BackwardGpuTest {
    private static final Path ROOT = TestFiles.root();
    private static final List<Operator> OPS = List.of(Operators.SOFTMAX_BACKWARD, Operators.LOG_SOFTMAX_BACKWARD);
    /** Rows longer than two reference chunks (2048 columns), so the chunked dot product and its merge both run. */
    private static final Shape LONG = new Shape(37, 4099);
    private static Gpu gpu;
    /** One build of kevo's kernels per operator (float32) for the reference and salt cases: each costs a second. */
    private static final Map<Operator, TrustedKernels> TRUSTED = new java.util.HashMap<>();

    @BeforeAll
    static void openOnce() {
        gpu = Gpu.open(0);
    }

    @AfterAll
    static void close() {
        TRUSTED.values().forEach(TrustedKernels::close);
        if (gpu != null) {
            gpu.close();
        }
    }

    private static TrustedKernels trusted(Task task) {
        return TRUSTED.computeIfAbsent(task.op(), op -> new TrustedKernels(gpu, Nvrtc.load(Optional.empty()),
                CompileCache.none(), task));
    }

    private static Suite quick() {
        return SuiteFile.load(ROOT.resolve("evaluator/suites/quick.yaml"));
    }

    private static CandidateResult judge(Operator op, Path file, Precision dtype, Baseline against) {
        return judge(op, ContractParser.read(file), dtype, against);
    }

    private static CandidateResult judge(Operator op, KernelFile file, Precision dtype, Baseline against) {
        return judge(op, file, dtype, against, quick());
    }

    private static CandidateResult judge(Operator op, KernelFile file, Precision dtype, Baseline against,
                                         Suite suite) {
        EvalSettings settings = EvalSettings.load(ROOT.resolve("config/eval.yaml")).toBuilder().op(op.id())
                .dtype(dtype).build();
        try (Evaluator evaluator = new Evaluator(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), suite,
                against, settings, new Task(op, dtype))) {
            return evaluator.evaluate(file, 7, Evaluator.Run.plain(), Phase.Listener.NONE);
        }
    }

    private static Baseline ownBaseline(Operator op) {
        return new Baseline.File(ContractParser.read(ROOT.resolve("evaluator/baselines/" + op.ownBaseline() + ".cu")));
    }

    private static boolean log(Operator op) {
        return op == Operators.LOG_SOFTMAX_BACKWARD;
    }

    /** What scales the row's dot product onto an element: y, or the probability exp(y). */
    private static double weight(Operator op, double y) {
        return log(op) ? Math.exp(y) : y;
    }

    /** dx in float64 from y and dy as stored, and each element's scale, written out from the operators' definitions. */
    private static double[][] formula(Operator op, float[] y, float[] dy, Shape shape) {
        double[] dx = new double[y.length];
        double[] scale = new double[y.length];
        for (int r = 0; r < shape.rows(); r++) {
            int base = r * shape.cols();
            double dot = 0;
            double abs = 0;
            for (int c = 0; c < shape.cols(); c++) {
                double term = log(op) ? dy[base + c] : (double) y[base + c] * dy[base + c];
                dot += term;
                abs += Math.abs(term);
            }
            for (int c = 0; c < shape.cols(); c++) {
                int i = base + c;
                double w = weight(op, y[i]);
                dx[i] = log(op) ? dy[i] - w * dot : y[i] * (dy[i] - dot);
                scale[i] = Math.abs(dy[i]) + w * abs;
            }
        }
        return new double[][] {dx, scale};
    }

    private static float[] rounded(double[] v) {
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = (float) v[i];
        }
        return out;
    }

    /** One GPU's buffers for a gradient's check outside an evaluation: y, dy, dx, the dot products, the result. */
    private record Buffers(Task task, DeviceBuffer y, DeviceBuffer dy, DeviceBuffer dx, DeviceBuffer dots,
                           DeviceBuffer partial, DeviceBuffer result, ForwardScratch forward) implements AutoCloseable {
        static Buffers of(Task task, Shape shape) {
            long bytes = shape.elements() * 4;
            return new Buffers(task, gpu.alloc(bytes), gpu.alloc(bytes), gpu.alloc(bytes), gpu.alloc(shape.rows() * 16L),
                    gpu.alloc(TrustedKernels.referenceScratchBytes(shape)), gpu.alloc(CheckCounts.BYTES),
                    ForwardScratch.of(gpu, task, List.of(shape), 1));
        }

        Inputs inputs() {
            return new Inputs(List.of(y.pointer(), dy.pointer()), DevicePointer.none(), DevicePointer.none(), Map.of(),
                    forward.source(0));
        }

        float[] download(DeviceBuffer b, Shape shape) {
            float[] out = new float[(int) shape.elements()];
            gpu.download(b.pointer(), out, shape.elements() * 4);
            return out;
        }

        CheckCounts compare(TrustedKernels trusted, float[] dxValues, Shape shape, long seed, InputCase inputCase,
                            long salt) {
            gpu.upload(dx.pointer(), dxValues, shape.elements() * 4);
            trusted.reference(dots.pointer(), partial.pointer(), inputs(), shape);
            trusted.compareQueued(Outputs.of(dx.pointer()),
                    inputs(), dots.pointer(), result.pointer(), shape, seed, inputCase,
                    salt, task.op().tolerance(), true);
            return trusted.counts(result.pointer());
        }

        @Override
        public void close() {
            y.close();
            dy.close();
            dx.close();
            dots.close();
            partial.close();
            result.close();
            forward.close();
        }
    }

    static Stream<Arguments> opsAndCases() {
        List<Arguments> out = new ArrayList<>();
        for (Operator op : OPS) {
            for (InputCase c : InputCase.values()) {
                out.add(Arguments.of(op, c));
            }
        }
        return out.stream();
    }

    /**
     * On every case: y is the forward's output (rows of probabilities summing to 1), dy is drawn by row kind (a mean
     * NLL row holds one -1/rows), the harness's float64 reference is the formula on them, so the formula's answer passes,
     * one element off by a hundred times its bound is one violation, a masked entry's exact answer is held exactly, and
     * a changed bit of dy is a changed input.
     */
    @ParameterizedTest
    @MethodSource("opsAndCases")
    void theReferenceIsTheFormulaOnGeneratedInputsAndTheCheckSeesOneBadElement(Operator op, InputCase inputCase) {
        Task task = new Task(op, Precision.FP32);
        Shape shape = LONG;
        long seed = 6100 + 13L * inputCase.ordinal();
        TrustedKernels trusted = trusted(task);
        try (Buffers b = Buffers.of(task, shape)) {
            trusted.generate(b.inputs(), shape, seed, inputCase);
            float[] y = b.download(b.y(), shape);
            float[] dy = b.download(b.dy(), shape);
            for (int r = 0; r < shape.rows(); r++) {
                double mass = 0;
                int nonZero = 0;
                for (int c = 0; c < shape.cols(); c++) {
                    int i = r * shape.cols() + c;
                    mass += weight(op, y[i]);
                    nonZero += dy[i] != 0 ? 1 : 0;
                }
                assertEquals(1, mass, 1e-3, "row " + r + "'s probabilities sum to 1");
                if (r % 4 == 3) {
                    assertEquals(1, nonZero, "a mean NLL row has one non-zero gradient");
                }
            }
            double[][] formula = formula(op, y, dy, shape);
            float[] right = rounded(formula[0]);
            CheckCounts ok = b.compare(trusted, right, shape, seed, inputCase, 0);
            assertEquals(0, ok.violations() + ok.unwritten() + ok.nonFinite() + ok.inputChanged(), ok.toString());
            assertTrue(ok.relativeL2() < 1e-6, "relative to the scales: " + ok.relativeL2());

            int bad = shape.cols() * 8 + shape.cols() / 2;  // row 8: a normal dy row, so its scale is dy's, not 0
            while (weight(op, y[bad]) == 0 || dy[bad] == 0) {
                bad++;
            }
            float[] off = right.clone();
            off[bad] = (float) (formula[0][bad] + 1e-2 * formula[1][bad]);
            CheckCounts one = b.compare(trusted, off, shape, seed, inputCase, 0);
            assertEquals(1, one.violations(), "one element off by 1e-2 of its scale");
            assertEquals(bad, one.firstBad());

            int masked = -1;
            for (int i = 0; i < y.length && masked < 0; i++) {
                masked = weight(op, y[i]) == 0 ? i : -1;
            }
            if (masked >= 0) {
                float[] inexact = right.clone();
                inexact[masked] = right[masked] + Math.max(Math.ulp(right[masked]), Float.MIN_VALUE);
                CheckCounts exact = b.compare(trusted, inexact, shape, seed, inputCase, 0);
                assertEquals(1, exact.violations(), "where the dot product does not reach, the answer is exact");
            }

            float[] changed = dy.clone();
            changed[bad] = Float.intBitsToFloat(Float.floatToRawIntBits(dy[bad]) ^ 1);
            gpu.upload(b.dy().pointer(), changed, shape.elements() * 4);
            CheckCounts input = b.compare(trusted, right, shape, seed, inputCase, 0);
            assertEquals(1, input.inputChanged(), "one changed bit of dy");
        }
    }

    /**
     * A salt raises one dy a row, which the comparison under that salt takes as generated (and without it, as a changed
     * input a row); dx computed before the salt (an earlier launch's output) is then wrong on most rows, and the salt
     * taken back restores dy bit for bit.
     */
    @ParameterizedTest
    @MethodSource("ops")
    void aSaltMovesOneDyARowAndMakesAnEarlierOutputWrong(Operator op) {
        Task task = new Task(op, Precision.FP32);
        Shape shape = new Shape(64, 300);
        long seed = 77;
        long salt = 0x5A17_0001L;
        TrustedKernels trusted = trusted(task);
        try (Buffers b = Buffers.of(task, shape)) {
            trusted.generate(b.inputs(), shape, seed, InputCase.NORMAL_1);
            float[] y = b.download(b.y(), shape);
            float[] dy = b.download(b.dy(), shape);
            float[] before = rounded(formula(op, y, dy, shape)[0]);

            trusted.perturb(b.inputs(), shape, seed, InputCase.NORMAL_1, 0, salt);
            float[] salted = b.download(b.dy(), shape);
            for (int r = 0; r < shape.rows(); r++) {
                int moved = 0;
                for (int c = 0; c < shape.cols(); c++) {
                    int i = r * shape.cols() + c;
                    moved += Float.floatToRawIntBits(salted[i]) != Float.floatToRawIntBits(dy[i]) ? 1 : 0;
                    if (salted[i] != dy[i]) {
                        assertTrue(salted[i] >= 2 && salted[i] < 3, "raised to 2 + u: " + salted[i]);
                    }
                }
                assertEquals(1, moved, "row " + r);
            }
            float[] after = rounded(formula(op, y, salted, shape)[0]);
            CheckCounts fresh = b.compare(trusted, after, shape, seed, InputCase.NORMAL_1, salt);
            assertEquals(0, fresh.violations() + fresh.inputChanged(), fresh.toString());
            CheckCounts unsalted = b.compare(trusted, after, shape, seed, InputCase.NORMAL_1, 0);
            assertEquals(shape.rows(), unsalted.inputChanged(), "one dy a row differs from the generated");
            CheckCounts replayed = b.compare(trusted, before, shape, seed, InputCase.NORMAL_1, salt);
            assertTrue(replayed.violations() >= shape.rows() / 2, "an earlier output is wrong: " + replayed);

            trusted.perturb(b.inputs(), shape, seed, InputCase.NORMAL_1, salt, 0);
            float[] back = b.download(b.dy(), shape);
            for (int i = 0; i < dy.length; i++) {
                assertEquals(Float.floatToRawIntBits(dy[i]), Float.floatToRawIntBits(back[i]), "element " + i);
            }
        }
    }

    static Stream<Operator> ops() {
        return OPS.stream();
    }

    static Stream<Arguments> filesAndDtypes() {
        List<Arguments> out = new ArrayList<>();
        for (Operator op : OPS) {
            for (String file : List.of("seeds/" + op.id() + "/block_dot.cu", "seeds/" + op.id() + "/warp_rows.cu",
                    "seeds/" + op.id() + "/held_rows.cu", "evaluator/baselines/" + op.ownBaseline() + ".cu")) {
                for (Precision dtype : Precision.SUPPORTED) {
                    out.add(Arguments.of(op, file, dtype));
                }
            }
        }
        return out.stream();
    }

    /**
     * Every seed and the own baseline pass every shape of the quick suite and the fresh shapes in every dtype, timed
     * against the own baseline and the floor (a copy of two reads and a write), every shape with its timing.
     */
    @ParameterizedTest
    @MethodSource("filesAndDtypes")
    void theSeedsAndTheBaselinePassInEveryDtypeAndAreTimedAgainstTheFloor(Operator op, String file, Precision dtype) {
        CandidateResult r = judge(op, ROOT.resolve(file), dtype, ownBaseline(op));
        assertEquals(Verdict.PASS, r.verdict(), file + " " + dtype.id() + ": " + r.detail());
        assertNotNull(r.score(), "scored over its baseline");
        assertTrue(r.score().floorFraction() > 0.01 && r.score().floorFraction() < 3, "floor " + r.score());
        assertEquals(quick().shapes().stream().map(Shape::toString).toList(),
                r.shapes().stream().map(ShapeResult::shape).toList());
        for (ShapeResult s : r.shapes()) {
            assertNotNull(s.copy(), s.shape() + ": the floor's copy timed beside it");
            assertTrue(s.checkedLaunches() != null && s.checkedLaunches() > 0, s.shape() + ": timed launches checked");
        }
        assertTrue(r.freshShapes().stream().allMatch(s -> s.verdict() == Verdict.PASS), r.freshShapes()::toString);
    }

    static Stream<Arguments> opsAndDtypes() {
        return OPS.stream().flatMap(op -> Precision.SUPPORTED.stream().map(dtype -> Arguments.of(op, dtype)));
    }

    /**
     * The built-in agent's default genome rendered for each backward operator passes in every dtype, on shapes that
     * take each of its regimes: rows held by lanes (128), by a block (781, 4096), by a cluster (40000: three blocks in
     * float32; 100000) and the loop's (300000 and 3000000 columns, read twice, each thread's sum compensated).
     */
    @ParameterizedTest
    @MethodSource("opsAndDtypes")
    void theBuiltinGenomesKernelsPassInEveryDtype(Operator op, Precision dtype) {
        Suite regimes = Suite.of("backward-regimes", List.of("32x128", "1823x781", "64x4096", "200x40000", "1x100000",
                "150x300000", "2x3000000"));
        CandidateResult r = judge(op, RenderedGenome.defaultFor(new Task(op, dtype)), dtype, ownBaseline(op), regimes);
        assertEquals(Verdict.PASS, r.verdict(), op.id() + " " + dtype.id() + ": " + r.detail());
        assertTrue(r.freshShapes().stream().allMatch(s -> s.verdict() == Verdict.PASS), r.freshShapes()::toString);
    }

    /** cuDNN's cudnnSoftmaxBackward as the baseline, where cuDNN loads: timed beside a seed, its own error recorded. */
    @ParameterizedTest
    @MethodSource("ops")
    void cudnnsBackwardIsTheVendorBaseline(Operator op) {
        Cudnn cudnn;
        try {
            cudnn = Cudnn.load(System.getenv());
        } catch (KevoException e) {
            assumeTrue(false, "no cuDNN: " + e.getMessage());
            return;
        }
        CandidateResult r = judge(op, ROOT.resolve("seeds/" + op.id() + "/block_dot.cu"), Precision.FP32,
                new Baseline.Vendor(cudnn));
        assertEquals(Verdict.PASS, r.verdict(), r.detail());
        assertNotNull(r.score(), "scored over cuDNN");
        for (ShapeResult s : r.shapes()) {
            assertNotNull(s.baselineRelativeL2(), s.shape() + ": cuDNN's own error recorded");
            assertTrue(s.baselineRelativeL2() < 1e-4, s.shape() + ": cuDNN's backward within the bound "
                    + s.baselineRelativeL2());
        }
    }

    /**
     * dy's mean in place of the dot product (sum(y * dy), or sum(dy)): off by about the hot entry's dy on every row whose
     * y is not flat, far beyond the bound relative to dy's scale.
     */
    @ParameterizedTest
    @MethodSource("ops")
    void aKernelThatTakesDysMeanForTheDotProductIsWrong(Operator op) throws IOException {
        CandidateResult r = judgeOnce(op, BackwardKernelFiles.meanForDot(op));
        assertEquals(Verdict.WRONG_RESULT, r.verdict(), r.detail());
    }

    /** {@code file} judged in float32 against the own baseline, then deleted. */
    private static CandidateResult judgeOnce(Operator op, Path file) throws IOException {
        try {
            return judge(op, file, Precision.FP32, ownBaseline(op));
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * A correct kernel that memoises each row's dx under a key hashed from the row's y and dy and replays it when the
     * key comes back: every checked launch has new inputs and computes, but the timed launches
     * rotate over a few input sets, so the keys come back; dy's element raised at a column drawn anew before every
     * timed launch moves the row's dot product, the replayed rows are wrong, and the first timed launches are always
     * checked. Without the salt, the replay would be exactly right.
     */
    @ParameterizedTest
    @MethodSource("ops")
    void aKernelThatReplaysAnEarlierOutputIsCaughtByTheSalts(Operator op) throws IOException {
        CandidateResult r = judgeOnce(op, BackwardKernelFiles.memo(op));
        assertEquals(Verdict.TIMED_OUTPUT_WRONG, r.verdict(), r.detail());
        assertTrue(r.detail().contains("changed per launch"), r.detail());
        assertNotEquals(Verdict.PASS, r.shapes().getFirst().verdict(), "caught on the first shape timed");
    }
}
