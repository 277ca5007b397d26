package dev.kevo.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.ModelUsage;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

class StepKindTest {

    private static MutantRecord record(List<String> parents, String operator, boolean genome, boolean model) {
        return MutantRecord.builder("c").parents(parents).generation(1).agent(model ? "gpt" : "builtin")
                .operator(operator).summary("BLOCK 256->512")
                .genome(genome ? JsonNodeFactory.instance.objectNode() : null)
                .result(CandidateResult.rejected("c.cu", null, null, Verdict.WRONG_RESULT, "bad", 1))
                .model(model ? ModelUsage.of("m", 1.0, 1, 1, 1, 0.0) : null).build();
    }

    @Test
    void tuningGenomeModelAndSeedStepsAreToldApart() {
        assertEquals(StepKind.TUNING, StepKind.of(record(List.of("a"), "tune", false, false)));
        assertEquals(StepKind.TUNING, StepKind.of(record(List.of("a", "b"), "tune-crossover", false, false)));
        assertEquals(StepKind.GENOME, StepKind.of(record(List.of("a"), "mutate", true, false)));
        assertEquals(StepKind.GENOME, StepKind.of(record(List.of("a"), "fresh", true, false)));
        assertEquals(StepKind.MODEL, StepKind.of(record(List.of("a"), "improve", false, true)));
        assertEquals(StepKind.REPAIR, StepKind.of(record(List.of("a"), "repair", false, true)));
        assertEquals(StepKind.SEED, StepKind.of(record(List.of(), "seed", false, false)));
        assertEquals(StepKind.OTHER, StepKind.of(record(List.of("a"), "mutate", false, false)));
    }

    @Test
    void aTuningStepIsItsOwnKindOfEdgeInTheReportGraph() {
        assertEquals("tuning", CampaignReport.edgeKind(record(List.of("a"), "tune", false, false)));
        assertEquals("crossover", CampaignReport.edgeKind(record(List.of("a", "b"), "tune-crossover", false, false)));
        assertEquals("mutation", CampaignReport.edgeKind(record(List.of("a"), "mutate", true, false)));
    }
}
