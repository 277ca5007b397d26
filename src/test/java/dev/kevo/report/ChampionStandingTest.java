package dev.kevo.report;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.TestFiles;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Defaults;
import dev.kevo.data.InputCase;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Rejudged;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * show and report mark a champion that newer checks reject, or never ran: the sample campaign predates the causal and
 * lowest-mask cases (its champion fails lowest-mask on an H100: bench/results/hardening-round3b-h100), and a
 * re-judgement that kevo reeval recorded is read back.
 */
class ChampionStandingTest {

    private static final String UNCHECKED = "UNCHECKED on causal, lowest-mask, input cases kevo checks now and this "
            + "campaign did not: kevo reeval ";

    @Test
    void aChampionJudgedBeforeTheNewestCasesIsMarkedUncheckedAndNotOfferedForSanitizing() {
        Path sample = ReportFixture.folder();
        Outcome show = kevo("show", sample.toString());
        assertEquals(0, show.code(), show.err());
        assertTrue(show.out().contains("  " + UNCHECKED + sample + " --id " + ReportFixture.CHAMPION
                + " judges it on them\n"), show.out());
        assertTrue(show.out().contains("  sanitized: no\n"), "no suggestion to sanitize what newer checks did not run: "
                + show.out());
        String standing = summary(CampaignStore.open(sample)).championStanding();
        assertTrue(standing != null && standing.startsWith(UNCHECKED), standing);
    }

    /**
     * The shipped sample (mutations/sample-h100) was recorded on every input case kevo checks now, and its champion
     * sanitized: show names it, says so, and marks nothing.
     */
    @Test
    void theShippedSamplesChampionIsSanitizedAndMarkedByNothing() {
        Path sample = TestFiles.root().resolve("mutations/sample-h100");
        CampaignStore store = CampaignStore.open(sample);
        String champion = store.state().orElseThrow().bestId();
        assertTrue(store.frozen().settings().cases().containsAll(Defaults.CASES), "campaign.yaml lists every case");
        Outcome show = kevo("show", sample.toString());
        assertEquals(0, show.code(), show.err());
        assertTrue(show.out().contains("\nchampion " + champion + ": score 3.844x over cuDNN 9.14.0"), show.out());
        assertTrue(show.out().contains("\n  sanitized: pass: memcheck, racecheck, synccheck, initcheck on "), show.out());
        assertFalse(show.out().contains("UNCHECKED") || show.out().contains("REJECTED"), show.out());
        assertTrue(ChampionStanding.of(store, store.frozen(), store.mutant(champion).orElseThrow()).isEmpty());
        assertNull(summary(store).championStanding());
    }

    @Test
    void aRejudgementThatRejectedTheChampionIsShownByShowAndReport(@TempDir Path tmp) {
        CampaignStore store = CampaignStore.open(ReportFixture.copy(tmp));
        CandidateResult rejected = CandidateResult.rejected(ReportFixture.CHAMPION + ".cu", null, null,
                Verdict.NAN_OUTPUT, "32x128: case lowest-mask (seed 7): 1024 outputs NaN or Inf, first at row 0 col 0",
                7);
        store.saveRejudged(ReportFixture.CHAMPION, new Rejudged("0.1.0", "2026-12-01T00:00:00Z", Defaults.CASES,
                rejected));
        String line = "REJECTED when judged again (kevo 0.1.0, 2026-12-01T00:00:00Z): nan-output: 32x128: case "
                + "lowest-mask (seed 7): 1024 outputs NaN or Inf, first at row 0 col 0";
        Outcome show = kevo("show", store.dir().toString());
        assertEquals(0, show.code(), show.err());
        assertTrue(show.out().contains("  " + line + "\n"), show.out());
        assertEquals(line, summary(store).championStanding());
        assertFalse(store.mutants().stream().anyMatch(m -> m.id().contains("rejudged")), "not a mutant record");
    }

    @Test
    void aRejudgementOnEveryCaseThatPassedClearsTheMark(@TempDir Path tmp) {
        CampaignStore store = CampaignStore.open(ReportFixture.copy(tmp));
        MutantRecord champion = store.mutant(ReportFixture.CHAMPION).orElseThrow();
        store.saveRejudged(champion.id(), new Rejudged("0.1.0", "2026-12-01T00:00:00Z", List.of(InputCase.values()),
                champion.result()));
        assertNull(summary(store).championStanding());
        Outcome show = kevo("show", store.dir().toString());
        assertFalse(show.out().contains("UNCHECKED") || show.out().contains("REJECTED"), show.out());
        assertTrue(show.out().contains("sanitized: no (kevo eval --sanitize"), show.out());
    }

    private static ReportData.Summary summary(CampaignStore store) {
        return CampaignReport.gather(store, 5, store.dir()).summary();
    }
}
