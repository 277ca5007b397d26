package dev.kevo.eval;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.GpuTest;
import dev.kevo.KevoCli.Outcome;
import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Cudnn;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * cuDNN as the baseline on a real GPU: timed interleaved like a kernel file, its own error recorded per shape
 * (never a rejection), scores that repeat within the noise bound, and kevo eval's header, table and record.
 */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CudnnBaselineGpuTest {
    private Gpu gpu;
    private Evaluator evaluator;
    private String version;

    @BeforeAll
    void open() {
        Cudnn cudnn;
        try {
            cudnn = Cudnn.load(System.getenv());
        } catch (KevoException e) {
            System.err.println("SKIPPED cudnn baseline test: " + e.getMessage());
            return;
        }
        version = cudnn.version();
        gpu = Gpu.open(0);
        Suite suite = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/standard.yaml"));
        evaluator = new Evaluator(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), suite,
                new Baseline.Vendor(cudnn), EvalSettings.load(TestFiles.root().resolve("config/eval.yaml")));
    }

    @AfterAll
    void close() {
        if (evaluator != null) {
            evaluator.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }

    @Test
    void aSeedIsTimedAgainstCudnnAndCudnnsOwnErrorIsRecordedPerShape() {
        assumeTrue(evaluator != null, "no cuDNN");
        CandidateResult r = evaluator.evaluate(ContractParser.read(TestFiles.root().resolve("seeds/online.cu")), 42,
                Evaluator.Run.plain(), Phase.Listener.NONE);
        assertEquals(Verdict.PASS, r.verdict(), r.detail());
        for (ShapeResult s : r.shapes()) {
            assertNotNull(s.baseline(), s.shape() + ": cuDNN timed");
            assertNotNull(s.baselineRelativeL2(), s.shape() + ": cuDNN's error recorded");
            // Never a rejection, but a sane vendor: far from a wrong softmax (which errs by order 1).
            assertTrue(s.baselineRelativeL2() < 1e-2, s.shape() + ": cuDNN's rel. L2 " + s.baselineRelativeL2());
            System.out.printf("cudnn %-11s base %9.1f us  rel.L2 %.1e  online %9.1f us  speedup %.2fx%n", s.shape(),
                    s.baseline().medianMs() * 1000, s.baselineRelativeL2(), s.candidate().medianMs() * 1000, s.speedup());
        }
        System.out.printf("online.cu over cuDNN %s: %.3fx, floor %.2f%n", version, r.score().speedup(),
                r.score().floorFraction());
    }

    /** As EvaluatorGpuTest's repeatability test, with cuDNN as the baseline: what kevo reeval counts as the same. */
    @Test
    void theSameKernelFiveTimesAgainstCudnnReproducesWithinTheNoiseBound() {
        assumeTrue(evaluator != null, "no cuDNN");
        KernelFile online = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        int shapes = evaluator.suite().shapes().size();
        double[][] median = new double[shapes][5];
        double[][] base = new double[shapes][5];
        double[] score = new double[5];
        for (int run = 0; run < 5; run++) {
            CandidateResult result = evaluator.evaluate(online, run, Evaluator.Run.plain(), Phase.Listener.NONE);
            assertEquals(Verdict.PASS, result.verdict(), result.detail());
            score[run] = result.score().speedup();
            for (int s = 0; s < shapes; s++) {
                median[s][run] = result.shapes().get(s).candidate().medianMs();
                base[s][run] = result.shapes().get(s).baseline().medianMs();
            }
        }
        for (int s = 0; s < shapes; s++) {
            System.out.printf("repeatability vs cuDNN %-11s candidate %4.1f%%  cuDNN %4.1f%%%n",
                    evaluator.suite().shapes().get(s), spread(median[s]) * 100, spread(base[s]) * 100);
        }
        System.out.printf("repeatability vs cuDNN score %4.1f%%%n", spread(score) * 100);
        assertTrue(spread(score) <= MeasurementMethod.NOISE_BOUND,
                () -> String.format("scores over cuDNN vary by %.1f%%", spread(score) * 100));
        // What kevo promises (kevo reeval's rule): the score within the noise bound, the kernel's median on each shape
        // within twice it. cuDNN's own medians are the vendor's: on the H100 its 256x4096 once moved 10.1% across five
        // evaluations in one process (bench/results/gpu-tests-h100.txt) while the kernel's moved 2.0% and the score
        // stayed within the bound. They are printed above and held to a looser bound, so a vendor that swings by
        // more than that still fails here.
        double shapeBound = 2 * MeasurementMethod.NOISE_BOUND;
        double vendorBound = 4 * MeasurementMethod.NOISE_BOUND;
        for (int s = 0; s < shapes; s++) {
            int index = s;
            double candidate = spread(median[s]);
            double vendor = spread(base[s]);
            assertTrue(candidate <= shapeBound && vendor <= vendorBound, () -> evaluator.suite().shapes().get(index)
                    + String.format(": medians vary by %.1f%% (kernel), %.1f%% (cuDNN)", candidate * 100, vendor * 100));
        }
    }

    @Test
    void evalNamesCudnnInItsHeaderScoreAndRecord(@TempDir Path dir) throws IOException {
        assumeTrue(evaluator != null, "no cuDNN");
        Path json = dir.resolve("eval.json");
        Outcome o = kevo("eval", "--baseline", "cudnn", "--suite", "quick", "--json", json.toString(),
                TestFiles.root().resolve("seeds/online.cu").toString());
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("baseline cudnn " + version + " (--baseline: libcudnn.so"), o.out());
        assertTrue(o.out().contains("over cuDNN " + version + " (geometric mean speedup)"), o.out());
        JsonNode record = new ObjectMapper().readTree(json.toFile());
        assertEquals(version, record.path("baselineChoice").path("version").asText(), record.toString());
        assertTrue(record.path("results").get(0).path("shapes").get(0).has("baselineRelativeL2"));

        Outcome auto = kevo("eval", "--baseline", "auto", "--suite", "quick",
                TestFiles.root().resolve("seeds/online.cu").toString());
        assertEquals(0, auto.code(), auto.err());
        assertTrue(auto.out().contains("baseline cudnn " + version + " (auto: libcudnn.so"), auto.out());
        assertEquals("", auto.err().strip(), "auto found cuDNN: nothing to warn about");
    }

    private static double spread(double[] values) {
        return Arrays.stream(values).max().orElseThrow() / Arrays.stream(values).min().orElseThrow() - 1;
    }
}
