package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.DeviceBuffer;
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
import dev.kevo.task.Suite;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * log_softmax judged end to end as softmax is: its GPU reference held to the CPU's on every input case, its seed
 * passing in every dtype against its own baseline, and kernels that forget the log or take the log of a probability
 * rejected. Written before a GPU ran it: the first run on one also checks the harness's overflow rule, since fp16's
 * lowest-mask case makes a correct kernel write -inf where -65504 - max - log(sum) passes fp16's range.
 */
@GpuTest
class LogSoftmaxGpuTest {
    private static final Path SEEDS = TestFiles.root().resolve("seeds/log_softmax");
    private static final Path WRONG = TestFiles.root().resolve("src/test/resources/log_softmax");
    /** Rows longer than one reference chunk, so the chunked reference and its merge are both exercised. */
    private static final Shape SHAPE = new Shape(37, 20011);

    private static CandidateResult judge(Path file, Precision dtype) {
        return judge(ContractParser.read(file), dtype);
    }

    private static CandidateResult judge(KernelFile file, Precision dtype) {
        Suite suite = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/quick.yaml"));
        EvalSettings settings = EvalSettings.load(TestFiles.root().resolve("config/eval.yaml")).toBuilder()
                .op("log_softmax").dtype(dtype).build();
        KernelFile baseline = ContractParser.read(TestFiles.root().resolve("evaluator/baselines/log_softmax_two_pass.cu"));
        try (Gpu gpu = Gpu.open(0);
             Evaluator evaluator = new Evaluator(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), suite,
                     new Baseline.File(baseline), settings)) {
            return evaluator.evaluate(file, 7, Evaluator.Run.plain(), Phase.Listener.NONE);
        }
    }

    @ParameterizedTest
    @EnumSource(InputCase.class)
    void theGpuReferenceAgreesWithTheCpuAndTheCheckerSeesOneBadElement(InputCase inputCase) {
        int n = (int) SHAPE.elements();
        try (Gpu gpu = Gpu.open(0);
             TrustedKernels trusted = new TrustedKernels(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(),
                     new Task(Operators.LOG_SOFTMAX, Precision.FP32));
             DeviceBuffer x = gpu.alloc(n * 4L); DeviceBuffer y = gpu.alloc(n * 4L);
             DeviceBuffer stats = gpu.alloc(SHAPE.rows() * 16L); DeviceBuffer result = gpu.alloc(CheckCounts.BYTES);
             DeviceBuffer scratch = gpu.alloc(TrustedKernels.referenceScratchBytes(SHAPE))) {
            long seed = 4321 + inputCase.ordinal();
            trusted.generate(x.pointer(), SHAPE, seed, inputCase);
            float[] input = new float[n];
            gpu.download(x.pointer(), input, n * 4L);
            double[] cpu = Operators.LOG_SOFTMAX.reference(input, SHAPE.rows(), SHAPE.cols());
            trusted.reference(stats.pointer(), scratch.pointer(), Inputs.of(x.pointer()), SHAPE);

            // The CPU's answers rounded to float are right, -inf where masked; then one element is moved off by 1e-3
            // (toward 0, so that one near -3.4e38 stays finite).
            float[] out = new float[n];
            for (int i = 0; i < n; i++) {
                out[i] = (float) cpu[i];
            }
            int bad = n / 2 + 17;
            while (Float.isInfinite(out[bad])) {
                bad++;
            }
            out[bad] = out[bad] * 0.999f + 1e-3f;
            gpu.upload(y.pointer(), out, n * 4L);
            CheckCounts counts = trusted.compare(y.pointer(), Inputs.of(x.pointer()), stats.pointer(), result.pointer(), SHAPE,
                    seed, inputCase, Operators.LOG_SOFTMAX.tolerance());
            assertEquals(1, counts.violations(), "one perturbed element");
            assertEquals(bad, counts.firstBad());
            assertEquals(0, counts.unwritten() + counts.nonFinite() + counts.inputChanged());
        }
    }

    /** Every seed of seeds/log_softmax/ (each a classic design), in every dtype. */
    @ParameterizedTest
    @CsvSource({"online.cu, fp32", "online.cu, bf16", "online.cu, fp16", "online.cu, bf16-fp32",
            "warp_rows.cu, fp32", "warp_rows.cu, bf16", "warp_rows.cu, fp16", "warp_rows.cu, bf16-fp32",
            "split_rows.cu, fp32", "split_rows.cu, bf16", "split_rows.cu, fp16", "split_rows.cu, bf16-fp32"})
    void theSeedsPassInEveryDtypeAndAreTimedAgainstTheirFloor(String seed, String dtype) {
        CandidateResult r = judge(SEEDS.resolve(seed), Precision.parse(dtype));
        assertEquals(Verdict.PASS, r.verdict(), seed + ": " + r.detail());
        assertNotNull(r.score(), "scored over its baseline");
        assertTrue(r.score().floorFraction() > 0.05 && r.score().floorFraction() < 1.6, "floor " + r.score());
    }

    /**
     * The built-in agent's default genome rendered for log_softmax, every regime's kernels with its epilogue, passes
     * against the baseline in every dtype: the genome's values, which no test without a GPU sees.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fp32", "bf16", "fp16", "bf16-fp32"})
    void theDefaultGenomePassesInEveryDtype(String dtype) {
        Precision p = Precision.parse(dtype);
        CandidateResult r = judge(RenderedGenome.defaultFor(new Task(Operators.LOG_SOFTMAX, p)), p);
        assertEquals(Verdict.PASS, r.verdict(), r.detail());
        assertNotNull(r.score(), "scored over its baseline");
    }

    @Test
    void aKernelThatForgetsTheLogIsWrong() {
        CandidateResult r = judge(WRONG.resolve("no_log.cu"), Precision.FP32);
        assertEquals(Verdict.WRONG_RESULT, r.verdict(), r.detail());
    }

    /**
     * log(exp(x - max) / sum) is -inf for entries 104 or more below the maximum, whose answer is finite (nan-output,
     * from normal-20 on), and far off where the probability is subnormal in float (wrong-result): whichever a case's
     * check meets first.
     */
    @Test
    void aKernelThatTakesTheLogOfTheSoftmaxIsRejected() {
        CandidateResult r = judge(WRONG.resolve("log_of_softmax.cu"), Precision.FP32);
        assertTrue(r.verdict() == Verdict.NAN_OUTPUT || r.verdict() == Verdict.WRONG_RESULT,
                r.verdict() + ": " + r.detail());
    }

    /** The softmax seed, judged as log_softmax, never reaches the GPU: a contract error. */
    @Test
    void theSoftmaxSeedIsAContractError() {
        CandidateResult r = judge(TestFiles.root().resolve("seeds/online.cu"), Precision.FP32);
        assertEquals(Verdict.CONTRACT_ERROR, r.verdict(), r.detail());
    }
}
