package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kevo.agent.Agent;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What each child of a generation is given to work from, before any child runs. */
class BreedingTest {

    /** A model's agent: it asks for distinct requests and is never called here. */
    private static final class Asking implements Agent {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public boolean wantsDistinctRequests() {
            return true;
        }

        @Override
        public Proposal propose(ProposalRequest request) {
            throw new AssertionError("plans are drawn without asking");
        }
    }

    /** Seed {@code n} of an island; the same seed on every island has the same source. */
    private static MutantRecord seed(int island, int n) {
        return MutantRecord.builder("seed-" + n + "-on-" + island).generation(0).agent("seed").operator("seed")
                .sourceHash("hash-" + n).result(CandidateResult.builder("s" + n + ".cu", Verdict.PASS, 1L)
                        .score(1.0 + n / 10.0, 0.5).build()).build();
    }

    /**
     * In generation 1 every island holds the same three seeds, and six requests of a model cannot all have a parent
     * of their own: the ones that share a parent differ in their inspirations, and no inspiration is its parent.
     */
    @Test
    void aModelIsNeverAskedTheSameQuestionTwiceInAGenerationWhileTheIslandsHoldTheSameSeeds() {
        CampaignConfig config = CampaignTest.config(1).toBuilder().islands(2).childrenPerGeneration(3).build()
                .validated();
        List<List<MutantRecord>> islands = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            islands.add(List.of(seed(i, 1), seed(i, 2), seed(i, 3)));
        }
        Breeding breeding = new Breeding(config, new AgentPool(config.agents(), Map.of("fake", new Asking())), null,
                null, null, 1, islands, List.of(), List.of());
        Set<List<String>> requests = new HashSet<>();
        for (Breeding.Child child : breeding.children()) {
            Breeding.Plan plan = child.plan();
            List<String> request = new ArrayList<>(List.of(plan.parent().sourceHash(),
                    plan.mate().map(MutantRecord::sourceHash).orElse("")));
            for (MutantRecord inspiration : plan.inspirations()) {
                assertFalse(inspiration.sourceHash().equals(plan.parent().sourceHash()),
                        "inspired by its own parent: " + plan);
                request.add(inspiration.sourceHash());
            }
            assertFalse(!requests.add(request), "asked twice: " + request);
        }
        assertEquals(6, requests.size());
    }
}
