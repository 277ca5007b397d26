package dev.kevo.report;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Spend;
import dev.kevo.data.Verdict;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The progress line a campaign prints per evaluation. */
class CampaignProgressTest {

    private static String line(long elapsedMillis) {
        StringWriter text = new StringWriter();
        CampaignProgress progress = new CampaignProgress(CampaignProgress.Mode.LINES, new PrintWriter(text),
                new CampaignConfig.Stop(0, 1.0, 0, 0, 0.0));
        MutantRecord m = MutantRecord.builder("g0002-i0-c0").generation(2).agent("builtin").operator("mutate")
                .result(CandidateResult.builder("g0002-i0-c0.cu", Verdict.PASS, 1L).score(2.0, 0.8).build()).build();
        progress.evaluated(m, new CampaignState(2, 13, List.of(List.of(m.id())), m.id(), 0, elapsedMillis,
                Spend.NONE), m);
        return text.toString();
    }

    /**
     * Past its wall time a campaign still ends the evaluations it started and confirms its champion: the line says it
     * is finishing, not a countdown that starts again (a masked campaign on the H100 showed "ETA 0m52s" 8 s after
     * its minute was up).
     */
    @Test
    void pastTheWallTimeTheLineSaysFinishingAndBeforeItCountsDown() {
        assertTrue(line(68_000).contains("| finishing | last"), line(68_000));
        assertTrue(line(15_500).contains("ETA 0m45s"), line(15_500));
        assertTrue(line(59_800).contains("ETA 0m00s"), line(59_800));
    }
}
