package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Suite;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An operator added by adding files: the test operator y = x (CopyOperator, its reference copy.cu and its line in
 * META-INF/services, all test code, with tensors named src and dst) is judged end to end by the evaluator that judges
 * softmax: checked on every input case, timed beside its baseline and the copy, and a wrong kernel rejected.
 */
@GpuTest
class AddedOperatorGpuTest {
    private static final Path FILES = TestFiles.root().resolve("src/test/resources/operator");

    private static CandidateResult judge(String file, Precision dtype) {
        Suite suite = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/quick.yaml"));
        EvalSettings settings = EvalSettings.load(TestFiles.root().resolve("config/eval.yaml")).toBuilder()
                .op("copy").dtype(dtype).build();
        KernelFile baseline = ContractParser.read(FILES.resolve("copy_baseline.cu"));
        try (Gpu gpu = Gpu.open(0);
             Evaluator evaluator = new Evaluator(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), suite,
                     new Baseline.File(baseline), settings)) {
            return evaluator.evaluate(ContractParser.read(FILES.resolve(file)), 7, Evaluator.Run.plain(),
                    Phase.Listener.NONE);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fp32", "bf16-fp32"})
    void aRightKernelOfTheAddedOperatorPassesAndIsTimedAgainstItsFloor(String dtype) {
        CandidateResult r = judge("copy_rows.cu", Precision.parse(dtype));
        assertEquals(Verdict.PASS, r.verdict(), r.detail());
        assertNotNull(r.score(), "scored over its baseline");
        assertTrue(r.score().floorFraction() > 0.05 && r.score().floorFraction() < 1.6, "floor " + r.score());
        assertTrue(r.shapes().stream().allMatch(s -> s.relativeL2() == 0.0), "a copy is exact: " + r.shapes());
    }

    @Test
    void aWrongKernelOfTheAddedOperatorIsRejectedByItsReference() {
        CandidateResult r = judge("copy_off_by_one.cu", Precision.FP32);
        assertEquals(Verdict.WRONG_RESULT, r.verdict(), r.detail());
    }
}
