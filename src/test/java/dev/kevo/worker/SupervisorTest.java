package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.TestJvm;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.PhaseLimits;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The supervisor against workers that crash, hang or refuse: every case ends in a verdict or one clear error. */
class SupervisorTest {
    private static final Suite SUITE = new Suite("tiny", "", List.of(new Shape(4, 100)));
    private static final KernelFile CANDIDATE = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));

    private static Supervisor fake(String mode, PhaseLimits limits) {
        List<String> command = TestJvm.command(FakeWorker.class, mode);
        EvalSettings settings = EvalSettings.builder().suite("tiny").baseline("none").limits(limits).build();
        return new Supervisor(Supervisor.Setup.builder(command, SUITE, settings).target("sm_90", 132).build());
    }

    @Test
    void aWorkerThatDiesMidCandidateGivesWorkerCrashedWithItsLastWords() {
        try (Supervisor supervisor = fake("crash", PhaseLimits.defaults())) {
            CandidateResult result = supervisor.evaluate(CANDIDATE, 1, Evaluator.Run.plain());
            assertEquals(Verdict.WORKER_CRASHED, result.verdict());
            assertTrue(result.detail().contains("check phase"), result.detail());
            assertTrue(result.detail().contains("segmentation fault"), result.detail());
        }
    }

    @Test
    void aWorkerThatHangsIsKilledAtThePhaseLimitAndReplaced() {
        PhaseLimits limits = PhaseLimits.builder().startupSeconds(60).compileSeconds(20)
                .checkSeconds(0.5).timingSeconds(20).build();
        try (Supervisor supervisor = fake("hang", limits)) {
            // Timed from a ready worker, so that the lower bound is the check phase's limit alone, not its start.
            supervisor.ready();
            long start = System.nanoTime();
            CandidateResult first = supervisor.evaluate(CANDIDATE, 1, Evaluator.Run.plain());
            double seconds = (System.nanoTime() - start) / 1e9;
            assertEquals(Verdict.KERNEL_TIMEOUT, first.verdict());
            assertTrue(first.detail().contains("check phase ran past its limit of 0.5 s (limits.check_s in the eval "
                    + "config)"), first.detail());
            assertTrue(seconds >= 0.5 && seconds < 15, "took " + seconds + " s");
            CandidateResult second = supervisor.evaluate(CANDIDATE, 2, Evaluator.Run.plain());
            assertEquals(Verdict.KERNEL_TIMEOUT, second.verdict(), "a fresh worker took the second candidate");
            assertEquals(1, supervisor.restarts().count(), "one restart after the first timeout");
        }
    }

    @Test
    void aHangPastTheAnnouncedLaunchDeadlineIsKilledInSecondsNotAtThePhaseLimit() {
        PhaseLimits limits = PhaseLimits.builder().startupSeconds(60).compileSeconds(20)
                .checkSeconds(60).timingSeconds(60).build();
        try (Supervisor supervisor = fake("hang-after-expect", limits)) {
            long start = System.nanoTime();
            CandidateResult first = supervisor.evaluate(CANDIDATE, 1, Evaluator.Run.plain());
            double seconds = (System.nanoTime() - start) / 1e9;
            assertEquals(Verdict.KERNEL_TIMEOUT, first.verdict());
            assertTrue(first.detail().contains("case normal-1 of 4x100 ran past its deadline of 0.5 s"), first.detail());
            assertTrue(seconds < 10, "took " + seconds + " s, the check phase's limit is 60 s");
        }
    }

    @Test
    void aWorkerThatEatsMemoryWhileCompilingIsStoppedAtTheMemoryLimit() {
        PhaseLimits limits = PhaseLimits.builder().startupSeconds(60).compileSeconds(60).checkSeconds(60).timingSeconds(60)
                .workerMemoryGb(0.4).build();
        try (Supervisor supervisor = fake("bloat", limits)) {
            long start = System.nanoTime();
            CandidateResult result = supervisor.evaluate(CANDIDATE, 1, Evaluator.Run.plain());
            assertEquals(Verdict.COMPILE_TIMEOUT, result.verdict());
            assertTrue(result.detail().contains("over the 0.4 GB limit"), result.detail());
            assertTrue((System.nanoTime() - start) / 1e9 < 30, "stopped by memory, long before the 60 s limit");
        }
    }

    @Test
    void aWorkerThatCannotStartIsOneEnvironmentError() {
        try (Supervisor supervisor = fake("refuse", PhaseLimits.defaults())) {
            KevoException e = assertThrows(KevoException.class, supervisor::ready);
            assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
            assertEquals("no GPU here (fake)", e.getMessage());
        }
    }

    @Test
    void aMissingWorkerBinaryIsOneEnvironmentError() {
        EvalSettings settings = EvalSettings.defaults();
        try (Supervisor supervisor = new Supervisor(Supervisor.Setup.builder(List.of("/nonexistent/kevo-worker"), SUITE, settings).target("sm_90", 132).build())) {
            KevoException e = assertThrows(KevoException.class, supervisor::ready);
            assertTrue(e.getMessage().startsWith("cannot start a worker"), e.getMessage());
        }
    }
}
