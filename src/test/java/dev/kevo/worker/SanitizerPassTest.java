package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.CandidateResult;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * How one tool's run is judged from the three things it leaves: the worker's answer, the tool's report and the
 * sanitizer's exit status. Only all three clean is a pass.
 */
class SanitizerPassTest {
    private static final Path LOG = Path.of("/tmp/kevo-racecheck-1.log");
    private static final String CLEAN = "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)\n";
    private static final String RACE = """
            ========= Error: Race reported between Write access at smem_race+0x140
            =========     and Read access at smem_race+0xe0 [2 hazards]
            ========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
            """;

    private static CandidateResult ran() {
        return CandidateResult.builder("k.cu", Verdict.PASS, 1)
                .shapes(List.of(ShapeResult.ran("32x128", 1), ShapeResult.ran("8x128256", 3))).build();
    }

    private static SanitizerPass.Outcome judge(CandidateResult ran, String log, OptionalInt exit) {
        return SanitizerPass.judge(SanitizerTool.RACECHECK, ran, SanitizerReport.parse(SanitizerTool.RACECHECK, log),
                exit, LOG);
    }

    @Test
    void cleanEverywhereIsAPassOnTheShapesThatRan() {
        SanitizerPass.Outcome o = judge(ran(), CLEAN, OptionalInt.of(0));
        assertEquals(Verdict.PASS, o.verdict());
        assertNull(o.detail());
        assertEquals(List.of("32x128", "8x128256"), o.shapes());
    }

    @Test
    void aFindingIsTheToolsVerdictWhateverTheWorkerSaid() {
        assertEquals(Verdict.DATA_RACE, judge(ran(), RACE, OptionalInt.of(ComputeSanitizer.FINDINGS_EXIT)).verdict());
        CandidateResult faulted = CandidateResult.rejected("k.cu", null, null, Verdict.LAUNCH_FAILED, "terminated", 1);
        SanitizerPass.Outcome o = judge(faulted, RACE, OptionalInt.of(ComputeSanitizer.FINDINGS_EXIT));
        assertEquals(Verdict.DATA_RACE, o.verdict());
        assertTrue(o.detail().startsWith("racecheck: 2 hazards in smem_race"), o.detail());
    }

    @Test
    void aWorkerThatGaveNoCleanAnswerGivesItsOwnVerdict() {
        CandidateResult hung = CandidateResult.rejected("k.cu", null, null, Verdict.KERNEL_TIMEOUT,
                "check phase ran past its limit of 120 s", 1);
        SanitizerPass.Outcome o = judge(hung, "", OptionalInt.of(137));
        assertEquals(Verdict.KERNEL_TIMEOUT, o.verdict());
        assertEquals("racecheck: under the sanitizer, kernel-timeout: check phase ran past its limit of 120 s", o.detail());
    }

    @Test
    void aReportThatDoesNotAddUpIsNoPassAndKeepsItsLog() {
        SanitizerPass.Outcome noSummary = judge(ran(), "========= COMPUTE-SANITIZER\n", OptionalInt.of(0));
        assertEquals(Verdict.WORKER_CRASHED, noSummary.verdict());
        assertTrue(noSummary.detail().contains("no summary") && noSummary.detail().contains(LOG.toString()),
                noSummary.detail());
        SanitizerPass.Outcome findingsExit = judge(ran(), CLEAN, OptionalInt.of(ComputeSanitizer.FINDINGS_EXIT));
        assertEquals(Verdict.DATA_RACE, findingsExit.verdict(), "the exit status says it found something");
        assertTrue(findingsExit.detail().contains("exited " + ComputeSanitizer.FINDINGS_EXIT), findingsExit.detail());
        assertEquals(Verdict.WORKER_CRASHED, judge(ran(), CLEAN, OptionalInt.of(1)).verdict());
        assertEquals(Verdict.WORKER_CRASHED, judge(ran(), CLEAN, OptionalInt.empty()).verdict());
        CandidateResult nothing = CandidateResult.builder("k.cu", Verdict.PASS, 1).build();
        assertEquals(Verdict.WORKER_CRASHED, judge(nothing, CLEAN, OptionalInt.of(0)).verdict(), "ran no shape");
    }

    @Test
    void theWorkerFlagIsTheOneTheWorkerCommandTakes() {
        // WorkerCommand declares it (cli, which this package cannot see); UsageTest's peer checks the other side.
        assertEquals("--sanitize-run", SanitizerPass.WORKER_FLAG);
    }
}
