package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.TestFiles;
import dev.kevo.agent.DefaultGenomes;
import dev.kevo.agent.Genome;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Dtype;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Suite;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.ReferenceInputs;
import dev.kevo.task.op.Task;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * masked_softmax judged end to end: its GPU reference held to the CPU's under every mask kind and input case (the
 * generated lengths and mask downloaded and read by both), its seeds and its own baseline passing in every dtype on
 * the quick attention suite, and the corpus's three masked semantics (fully masked rows, the causal alignment, the
 * scale after the max) rejected. Written before a GPU ran it.
 */
@GpuTest
class MaskedSoftmaxGpuTest {
    private static final Path ROOT = TestFiles.root();
    private static final Task FP32 = new Task(Operators.MASKED_SOFTMAX, Precision.FP32);
    /** One GPU context and one build of kevo's kernels for the 80 reference cases: each compile costs a second. */
    private static Gpu gpu;
    private static TrustedKernels trusted;

    @BeforeAll
    static void openOnce() {
        gpu = Gpu.open(0);
        trusted = new TrustedKernels(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), FP32);
    }

    @AfterAll
    static void close() {
        if (trusted != null) {
            trusted.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }

    private static Suite quick() {
        return SuiteFile.load(ROOT.resolve("evaluator/suites/attention-quick.yaml"));
    }

    private static CandidateResult judge(Path file, Precision dtype) {
        return judge(file, dtype, quick());
    }

    private static CandidateResult judge(Path file, Precision dtype, Suite suite) {
        return judge(ContractParser.read(file), dtype, suite);
    }

    private static CandidateResult judge(KernelFile file, Precision dtype, Suite suite) {
        EvalSettings settings = EvalSettings.load(ROOT.resolve("config/eval.yaml")).toBuilder()
                .op("masked_softmax").dtype(dtype).build();
        KernelFile baseline = ContractParser.read(ROOT.resolve("evaluator/baselines/masked_softmax_two_pass.cu"));
        try (Evaluator evaluator = new Evaluator(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), suite,
                new Baseline.File(baseline), settings)) {
            return evaluator.evaluate(file, 7, Evaluator.Run.plain(), Phase.Listener.NONE);
        }
    }

    /**
     * Rows longer than one reference chunk (2048 keys), so the chunked reference and its merge run, with fewer queries
     * than keys; and short rows with more queries than keys, whose first rows a causal mask leaves empty. Every kind,
     * every case.
     */
    static Stream<Arguments> kindsAndCases() {
        List<Arguments> out = new ArrayList<>();
        for (String size : List.of("3x2x37x2500", "2x3x40x29")) {
            for (MaskKind kind : MaskKind.values()) {
                for (InputCase c : InputCase.values()) {
                    out.add(Arguments.of(Shape.parse(size).withMask(kind), c));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest
    @MethodSource("kindsAndCases")
    void theGpuReferenceAgreesWithTheCpuAndHoldsMaskedZerosAndTheMaskExactly(Shape shape, InputCase inputCase) {
        int n = (int) shape.elements();
        int maskElements = shape.batch() * shape.queries() * shape.cols();
        long seed = 9000 + 31L * inputCase.ordinal() + shape.mask().ordinal();
        try (DeviceBuffer x = gpu.alloc(n * 4L); DeviceBuffer y = gpu.alloc(n * 4L);
             DeviceBuffer lengths = gpu.alloc(shape.batch() * 4L); DeviceBuffer mask = gpu.alloc(maskElements * 4L);
             DeviceBuffer stats = gpu.alloc(shape.rows() * 16L); DeviceBuffer result = gpu.alloc(CheckCounts.BYTES);
             DeviceBuffer scratch = gpu.alloc(TrustedKernels.referenceScratchBytes(shape))) {
            float scale = FP32.scale(seed);
            boolean padding = shape.mask() == MaskKind.PADDING;
            boolean additive = shape.mask() == MaskKind.ADDITIVE;
            Inputs inputs = new Inputs(x.pointer(), padding ? lengths.pointer() : DevicePointer.none(),
                    additive ? mask.pointer() : DevicePointer.none(), Map.of(Task.SCALE, scale));
            trusted.generate(inputs, shape, seed, inputCase);
            float[] xs = new float[n];
            gpu.download(x.pointer(), xs, n * 4L);
            int[] ls = null;
            float[] ms = null;
            if (padding) {
                ls = new int[shape.batch()];
                gpu.download(lengths.pointer(), ls, shape.batch() * 4L);
                for (int len : ls) {
                    assertTrue(len >= 0 && len <= shape.cols(), "a length in [0, keys]: " + len);
                }
                if (inputCase == InputCase.LOWEST_MASK) {
                    assertEquals(0, ls[0], "the cases about masks reach a length of 0");
                    assertEquals(1, ls[1], "... and of 1");
                }
            }
            if (additive) {
                ms = new float[maskElements];
                gpu.download(mask.pointer(), ms, maskElements * 4L);
                if (inputCase == InputCase.CAUSAL) {
                    for (int c = 0; c < shape.cols(); c++) {
                        assertEquals(-Float.MAX_VALUE, ms[c], "mask row 0 of an edge case is fully masked");
                    }
                }
            }
            double[] cpu = Operators.MASKED_SOFTMAX.reference(new ReferenceInputs(shape, Dtype.FP32, xs, ls, ms,
                    scale));
            trusted.reference(stats.pointer(), scratch.pointer(), inputs, shape);

            float[] out = new float[n];
            int finite = -1;
            int masked = -1;
            for (int i = 0; i < n; i++) {
                out[i] = (float) cpu[i];
                if (cpu[i] > 1e-3 && finite < 0 && i > n / 3) {
                    finite = i;
                }
                if (masked < 0 && i > n / 3 && masks(shape, i, xs, ls, ms)) {
                    masked = i;
                }
            }
            gpu.upload(y.pointer(), out, n * 4L);
            CheckCounts right = trusted.compare(y.pointer(), inputs, stats.pointer(), result.pointer(), shape, seed,
                    inputCase, FP32.tolerance(EvalSettings.defaults()));
            assertEquals(0, right.violations() + right.unwritten() + right.nonFinite() + right.inputChanged(),
                    "the CPU's answer is right on the GPU: " + right);

            if (finite >= 0) {
                float[] off = out.clone();
                off[finite] = off[finite] * 1.01f;
                gpu.upload(y.pointer(), off, n * 4L);
                CheckCounts one = trusted.compare(y.pointer(), inputs, stats.pointer(), result.pointer(), shape, seed,
                        inputCase, FP32.tolerance(EvalSettings.defaults()));
                assertEquals(1, one.violations(), "one probability off by 1%");
                assertEquals(finite, one.firstBad());
            }
            if (masked >= 0) {
                // A masked entry's 0 is exact: the smallest positive float there is one violation.
                float[] off = out.clone();
                off[masked] = Float.MIN_VALUE;
                gpu.upload(y.pointer(), off, n * 4L);
                CheckCounts one = trusted.compare(y.pointer(), inputs, stats.pointer(), result.pointer(), shape, seed,
                        inputCase, FP32.tolerance(EvalSettings.defaults()));
                assertEquals(1, one.violations(), "a masked output held exactly at 0");
            }
            if (padding || additive) {
                // The mask's tensors are inputs like x: one changed word is an input changed.
                gpu.upload(y.pointer(), out, n * 4L);
                DevicePointer tensor = padding ? lengths.pointer() : mask.pointer();
                // a length one more (its bits as a float's: upload takes floats), or a bias of 1 or 2
                gpu.upload(tensor, new float[] {padding ? Float.intBitsToFloat(ls[0] + 1) : ms[0] == 1f ? 2f : 1f}, 4);
                CheckCounts changed = trusted.compare(y.pointer(), inputs, stats.pointer(), result.pointer(), shape,
                        seed, inputCase, FP32.tolerance(EvalSettings.defaults()));
                assertEquals(1, changed.inputChanged(), "one changed word of the " + (padding ? "lengths" : "mask"));
            }
        }
    }

    /** Whether element i's score is -inf: masked by the shape's kind, or x itself -inf. */
    private static boolean masks(Shape shape, int i, float[] x, int[] lengths, float[] mask) {
        int r = i / shape.cols();
        int c = i % shape.cols();
        int q = r % shape.queries();
        int b = r / shape.queries() / shape.heads();
        return x[i] == Float.NEGATIVE_INFINITY || switch (shape.mask()) {
            case NONE -> false;
            case CAUSAL -> c > q + shape.cols() - shape.queries();
            case PADDING -> c >= lengths[b];
            case ADDITIVE -> {
                float m = mask[(b * shape.queries() + q) * shape.cols() + c];
                yield m == -Float.MAX_VALUE || m == Float.NEGATIVE_INFINITY;
            }
        };
    }

    static Stream<Arguments> seedsAndDtypes() {
        List<Arguments> out = new ArrayList<>();
        for (String file : List.of("seeds/masked_softmax/warp_rows.cu", "seeds/masked_softmax/online.cu",
                "seeds/masked_softmax/split_rows.cu", "evaluator/baselines/masked_softmax_two_pass.cu")) {
            for (String dtype : List.of("fp32", "bf16", "fp16", "bf16-fp32")) {
                out.add(Arguments.of(file, dtype));
            }
        }
        return out.stream();
    }

    /**
     * The seeds and the own baseline pass every shape of the quick attention suite under every mask kind, each in
     * every dtype, and are timed against the floor; a kernel that skips masked keys may beat a copy of every byte.
     */
    @ParameterizedTest
    @MethodSource("seedsAndDtypes")
    void theSeedsAndTheBaselinePassInEveryKindAndDtype(String file, String dtype) {
        CandidateResult r = judge(ROOT.resolve(file), Precision.parse(dtype));
        assertEquals(Verdict.PASS, r.verdict(), r.detail());
        assertNotNull(r.score(), "scored over its baseline");
        assertTrue(r.score().floorFraction() > 0.05 && r.score().floorFraction() < 3, "floor " + r.score());
        assertEquals(quick().shapes().stream().map(Shape::toString).toList(),
                r.shapes().stream().map(ShapeResult::shape).toList(), "every shape in every kind");
        assertTrue(r.freshShapes().stream().allMatch(s -> s.verdict() == Verdict.PASS), r.freshShapes()::toString);
    }

    /**
     * The built-in agent's default genome rendered for masked_softmax passes in every dtype, every mask kind and every
     * regime its plans route to: rows held by lanes (64, 781 keys), by a block (8192), by a cluster (40000 keys, more
     * rows than SMs), split over blocks in one launch (few rows of 131072 and 3000000 keys), and the block loop (300000
     * keys, more rows than SMs); the regimes of many rows with several heads, whose rows an additive mask visits query
     * by query. The genome's values, which no test without a GPU sees: masked_softmax's own default, and the same
     * with every regime's skipMasked the other way, on the shapes of the regimes that have it (lanes, block, cluster),
     * so that both settings of each are judged for float and 16-bit x (a skipping kernel reads no x past a causal or
     * padding limit, and must still write 0 there; fp16 and bf16-in/fp32-out read x in the vectors bf16 does).
     */
    @ParameterizedTest
    @CsvSource({"fp32, false", "bf16, false", "fp16, false", "bf16-fp32, false", "fp32, true", "bf16, true"})
    void theDefaultGenomePassesEveryRegimeInEveryKindAndDtype(String dtype, boolean flipped) {
        Precision p = Precision.parse(dtype);
        Task task = new Task(Operators.MASKED_SOFTMAX, p);
        Genome d = DefaultGenomes.of(task);
        Genome genome = flipped ? d.withSkipMasked(!d.shortRows().skipMasked(), !d.blockRows().skipMasked(),
                !d.clusterRows().skipMasked()) : d;
        List<String> shapes = new ArrayList<>();
        List<String> regimes = List.of("2x4x64x64", "3x2x5x781", "1x2x96x8192", "1x1x200x40000", "1x2x4x131072",
                "1x1x2x3000000", "1x2x75x300000");
        for (String shape : flipped ? regimes.subList(0, 4) : regimes) {
            for (MaskKind kind : MaskKind.values()) {
                shapes.add(kind == MaskKind.NONE ? shape : shape + ":" + kind.id());
            }
        }
        Suite suite = Suite.of("regimes", shapes);
        CandidateResult r = judge(RenderedGenome.of(genome, flipped ? "skips-flipped" : "default", task), p, suite);
        assertEquals(Verdict.PASS, r.verdict(), r.detail());
        // A shape of one batch entry and one head reads back as plain rows x keys.
        assertEquals(suite.shapes().stream().map(Shape::toString).toList(),
                r.shapes().stream().map(ShapeResult::shape).toList(), "every shape in every kind");
    }

    /** The corpus's masked semantics: each wrong on the rows its defect touches, and rejected there. */
    @ParameterizedTest
    @ValueSource(strings = {"masked_fully_masked_flat.cu:2x4x64x64:causal", "masked_causal_top_left.cu:1x4x96x64:causal",
            "masked_scale_after_max.cu:2x4x64x64"})
    void eachMaskedSemanticsCorpusFileIsRejectedWhereItsDefectShows(String fileAndShape) {
        String file = fileAndShape.substring(0, fileAndShape.indexOf(':'));
        String shape = fileAndShape.substring(fileAndShape.indexOf(':') + 1);
        CandidateResult r = judge(ROOT.resolve("evaluator/adversarial").resolve(file), Precision.FP32);
        assertEquals(Verdict.WRONG_RESULT, r.verdict(), r.detail());
        assertTrue(r.detail().startsWith(shape + ": "), "first rejected on " + shape + ": " + r.detail());
    }

    /** A softmax file judged as masked_softmax never reaches the GPU: a contract error. */
    @Test
    void theSoftmaxSeedIsAContractError() {
        CandidateResult r = judge(ROOT.resolve("seeds/online.cu"), Precision.FP32);
        assertEquals(Verdict.CONTRACT_ERROR, r.verdict(), r.detail());
    }
}
