package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a sanitizer's outcome does to a result, and how it is saved. */
class SanitizedTest {
    private static final Sanitized CLEAN = Sanitized.builder(Verdict.PASS).tools(List.of("memcheck", "racecheck",
            "synccheck", "initcheck")).shapes(List.of("32x128", "8x128256")).seconds(21.4).build();
    private static final Sanitized OVERREAD = Sanitized.builder(Verdict.MEMORY_ERROR).detail("memcheck: 16 errors in "
            + "softmax_overread (invalid __global__ read of size 4 bytes, 1 bytes after an allocation of 16384 bytes)")
            .tools(List.of("memcheck")).shapes(List.of("32x128")).seconds(3.2).build();

    private static CandidateResult passed() {
        return CandidateResult.builder("k.cu", Verdict.PASS, 7).score(2.0, 0.9)
                .shapes(List.of(ShapeResult.checked("32x128", 1, 1e-7, 1e-9, null))).build();
    }

    @Test
    void aCleanPassKeepsTheVerdictAndTheScore() {
        CandidateResult r = passed().withSanitized(CLEAN);
        assertEquals(Verdict.PASS, r.verdict());
        assertEquals(2.0, r.score().speedup());
        assertSame(CLEAN, r.sanitized());
    }

    @Test
    void aFindingIsTheVerdictTakesTheScoreAndKeepsWhatTheEvaluationFound() {
        CandidateResult r = passed().withSanitized(OVERREAD);
        assertEquals(Verdict.MEMORY_ERROR, r.verdict());
        assertNull(r.score());
        assertEquals(OVERREAD.detail(), r.detail());
        assertEquals(1, r.shapes().size(), "the measurements stay, as evidence");
        CandidateResult wrong = CandidateResult.rejected("k.cu", null, null, Verdict.WRONG_RESULT,
                "1x1000: case normal-1: 3 elements off", 7).withSanitized(OVERREAD);
        assertEquals(Verdict.MEMORY_ERROR, wrong.verdict());
        assertTrue(wrong.detail().endsWith("; the evaluation also found wrong-result: 1x1000: case normal-1: 3 "
                + "elements off"), wrong.detail());
    }

    @Test
    void whatASummarySaysAndWhatIsSaved() throws Exception {
        assertEquals("pass: memcheck, racecheck, synccheck, initcheck on 32x128, 8x128256 (21.4 s)", CLEAN.summary());
        assertEquals(OVERREAD.summary() + "; " + OVERREAD.detail(), OVERREAD.line());
        ObjectMapper json = new ObjectMapper();
        String saved = json.writeValueAsString(passed().withSanitized(OVERREAD));
        assertTrue(saved.contains("\"verdict\":\"memory-error\""), saved);
        assertEquals(passed().withSanitized(OVERREAD), json.readValue(saved, CandidateResult.class));
    }

    @Test
    void onlyVerdictsWhoseLaunchesAllReturnedAreWorthSanitizing() {
        assertTrue(Verdict.PASS.launchesReturned() && Verdict.WRONG_RESULT.launchesReturned()
                && Verdict.TIMED_OUTPUT_WRONG.launchesReturned());
        for (Verdict v : List.of(Verdict.COMPILE_ERROR, Verdict.KERNEL_TIMEOUT, Verdict.ILLEGAL_ADDRESS,
                Verdict.WORKER_CRASHED, Verdict.SOURCE_REJECTED, Verdict.MEMORY_ERROR, Verdict.DATA_RACE)) {
            assertTrue(!v.launchesReturned(), v.id());
        }
    }
}
