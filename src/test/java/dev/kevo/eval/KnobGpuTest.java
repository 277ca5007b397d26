package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.task.op.Task;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.KernelResources;
import dev.kevo.data.Verdict;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Knob;
import dev.kevo.task.KnobRewriter;
import dev.kevo.task.Suite;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Knobs on a real GPU: the values reach the loaded kernels, and the seeds pass at the ends of every knob's range. */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KnobGpuTest {
    private Gpu gpu;
    private Nvrtc nvrtc;
    private Suite quick;
    private Evaluator evaluator;

    @BeforeAll
    void open() {
        gpu = Gpu.open(0);
        nvrtc = Nvrtc.load(Optional.empty());
        quick = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/quick.yaml"));
        KernelFile baseline = ContractParser.read(TestFiles.root().resolve("evaluator/baselines/block_two_pass.cu"));
        evaluator = new Evaluator(gpu, nvrtc, CompileCache.none(), quick, new Baseline.File(baseline), EvalSettings.load(
                TestFiles.root().resolve("config/eval.yaml")));
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
    void theLoadedKernelWasCompiledWithTheKnobsValue() {
        KernelFile file = ContractParser.parse("guard.cu", null, KnobCompileTest.GUARDED);
        Preflight preflight = new Preflight(nvrtc, gpu.info().arch(), gpu.info().sms(), quick, Task.softmax(Precision.FP32));
        for (String block : List.of("128", "256")) {
            KernelFile tuned = ContractParser.parse("guard.cu", null, KnobRewriter.rewrite(file, Map.of("BLOCK", block)));
            CandidateResult checked = preflight.check(tuned, 1, Optional.of(gpu));
            assertEquals(Verdict.PASS, checked.verdict(), checked.detail());
            KernelResources k = checked.kernels().getFirst();
            assertEquals(Integer.parseInt(block) * 4, k.staticSharedBytes(), "tile[BLOCK] is BLOCK floats");
        }
    }

    List<Path> seeds() {
        return TestFiles.seeds();
    }

    /** Each knob at its lowest and its highest allowed value, the others at their current ones. */
    @ParameterizedTest
    @MethodSource("seeds")
    void everySeedPassesAtTheEndsOfEveryKnob(Path seed) {
        KernelFile file = ContractParser.read(seed);
        for (Knob knob : file.knobs().knobs()) {
            for (String value : List.of(knob.values().getFirst(), knob.values().getLast())) {
                if (value.equals(knob.value()) || !file.knobs().with(Map.of(knob.name(), value)).allowed()) {
                    continue;
                }
                KernelFile variant = ContractParser.parse(file.name(), null,
                        KnobRewriter.rewrite(file, Map.of(knob.name(), value)));
                CandidateResult result = evaluator.evaluate(variant, 42, Evaluator.Run.plain(), Phase.Listener.NONE);
                assertEquals(Verdict.PASS, result.verdict(),
                        () -> seed.getFileName() + " with " + knob.name() + "=" + value + ": " + result.detail());
                assertTrue(result.score().speedup() > 0);
            }
        }
    }
}
