package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.Suite;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What BackwardGpuTest judges on a GPU passes everything before the GPU here: the seeds, the own baselines and the
 * test's wrong kernels (BackwardKernelFiles) are read, declare the operator, compile with NVRTC and have a plan for
 * every shape of the quick suite; so a GPU run's verdicts are about what runs, not a typo in a header.
 */
@NeedsNvrtc
class BackwardKernelFilesTest {

    static List<Operator> ops() {
        return List.of(Operators.SOFTMAX_BACKWARD, Operators.LOG_SOFTMAX_BACKWARD);
    }

    private static Preflight.Passed preflight(Operator op, Path file) {
        Suite quick = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/quick.yaml"));
        Preflight preflight = new Preflight(Nvrtc.load(Optional.empty()), "sm_90", 132, quick,
                new Task(op, Precision.FP32));
        Preflight.Passed passed = preflight.run(ContractParser.read(file));
        assertEquals(quick.shapes().size(), passed.plans().size(), file.toString());
        return passed;
    }

    @ParameterizedTest
    @MethodSource("ops")
    void theSeedsAndTheOwnBaselinePassPreflightOnTheQuickSuite(Operator op) {
        for (String file : List.of("seeds/" + op.id() + "/block_dot.cu", "seeds/" + op.id() + "/warp_rows.cu",
                "evaluator/baselines/" + op.ownBaseline() + ".cu")) {
            preflight(op, TestFiles.root().resolve(file));
        }
    }

    @ParameterizedTest
    @MethodSource("ops")
    void theWrongKernelsPassPreflightSoThatOnlyTheirResultsAreJudged(Operator op) throws IOException {
        for (Path file : List.of(BackwardKernelFiles.meanForDot(op), BackwardKernelFiles.memo(op))) {
            try {
                preflight(op, file);
            } finally {
                Files.deleteIfExists(file);
            }
        }
    }
}
