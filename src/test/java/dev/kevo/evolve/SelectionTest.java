package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kevo.agent.AgentException;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Survival and migration with members that an island can really hold, agent failures included. */
class SelectionTest {

    private static MutantRecord passed(String id, double score) {
        return MutantRecord.builder(id).generation(1).agent("fake").operator("mutate").sourceHash("hash-" + id)
                .result(CandidateResult.builder(id, Verdict.PASS, 1L).score(score, 0.5).build()).build();
    }

    /** What an agent that answered nothing usable leaves: a record with no source and so no source hash. */
    private static MutantRecord agentFailure(String id) {
        AgentException e = new AgentException("no code block in the answer");
        return MutantRecord.builder(id).generation(1).agent("model").operator("failed").summary(e.getMessage())
                .result(CandidateResult.rejected(id, null, null, Verdict.AGENT_FAILURE, e.getMessage(), 1L)).build();
    }

    private static List<String> ids(List<MutantRecord> members) {
        return members.stream().map(MutantRecord::id).toList();
    }

    @Test
    void anAgentFailureSurvivesOnlyToFillAnIslandThatTooFewKernelsReached() {
        List<MutantRecord> survivors = Selection.survivors(List.of(passed("a", 1.2)),
                List.of(agentFailure("f"), passed("b", 1.1)), 4, 1);
        assertEquals(List.of("a", "b", "f"), ids(survivors));
    }

    /** It used to dereference the failure's absent source hash and end the campaign. */
    @Test
    void migrationPassesOverAnIslandHoldingAnAgentFailure() {
        List<MutantRecord> first = List.of(passed("a", 1.5), agentFailure("f"));
        List<MutantRecord> second = List.of(passed("b", 1.2), passed("c", 1.1));
        List<List<MutantRecord>> after = Selection.migrate(List.of(first, second));
        assertEquals(List.of("a", "b"), ids(after.get(0)), "second's best replaces first's worst, the failure");
        assertEquals(List.of("a", "b"), ids(after.get(1)), "first's best replaces second's worst");
    }

    @Test
    void migrationDoesNotCopyAKernelAnIslandAlreadyHolds() {
        MutantRecord shared = passed("s", 1.5);
        List<List<MutantRecord>> after = Selection.migrate(List.of(List.of(shared, passed("x", 1.0)),
                List.of(shared, passed("y", 1.1))));
        assertEquals(List.of("s", "x"), ids(after.get(0)));
        assertEquals(List.of("s", "y"), ids(after.get(1)));
    }
}
