package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.agent.Candidate;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KnobRewriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** What a model is told about knobs: how to declare them, and which values did best among the parent's relatives. */
class KnobEvidenceTest {

    private static Candidate relative(String id, Map<String, String> values, double score) {
        String source = KnobRewriter.rewrite(ContractParser.parse("online.cu", null, Fixtures.recordedParent()),
                values);
        return new Candidate(id, source, Optional.empty(), Fixtures.result(Verdict.PASS, null, score, 0.3, null,
                List.of(), List.of()));
    }

    @Test
    void theParentsKnobsComeWithTheBestValuesAmongItsRelatives() {
        List<Candidate> relatives = List.of(
                relative("g0002-i0-c0", Map.of("SMALL_BLOCK", "256"), 1.80),
                relative("g0002-i0-c1", Map.of("SMALL_BLOCK", "256", "MID_MAX", "8192"), 1.70),
                relative("g0003-i1-c0", Map.of("SMALL_BLOCK", "64"), 1.40),
                new Candidate("g0004-i2-c1", Fixtures.seed("register_rows.cu"), Optional.empty(),
                        Fixtures.result(Verdict.PASS, null, 9.0, 0.9, null, List.of(), List.of())));
        ProposalRequest request = ProposalRequest.builder(Fixtures.parent(), new SplittableRandom(1))
                .context(Fixtures.CONTEXT).relatives(relatives).build();
        PromptBuilder.Prompt p = PromptBuilderTest.builder(Fixtures.IMPROVE_ONLY).forProposal(request);
        assertTrue(p.user().contains("Knobs of `seed-online`"), p.user());
        assertTrue(p.user().contains("- SMALL_BLOCK = 128 (allowed: 32, 64, 128, 256, 512, 1024); judged: "
                + "256 1.800x (2), 128 1.520x (1), 64 1.400x (1)"), p.user());
        assertTrue(p.user().contains("- MID_MAX = 4096 (allowed: 1024, 2048, 4096, 8192, 16384); judged: "
                + "4096 1.800x (3), 8192 1.700x (1)"), p.user());
        assertTrue(p.user().contains("- rule: SMALL_MAX < MID_MAX"), p.user());
        assertFalse(p.user().contains("9.000x"), "a relative without these knobs says nothing about them");
        assertTrue(p.system().contains("## Knobs: expose the numbers you are unsure of"), p.system());
        assertTrue(p.system().contains("`-DNAME=VALUE` for each knob"), p.system());
    }

    @Test
    void aParentWithoutKnobsGetsNoKnobSection() {
        Candidate plain = new Candidate("p", "/*@kevo {\"plans\": [{\"launches\": [{\"kernel\": \"k\", \"grid\": 1, "
                + "\"block\": 32, \"args\": []}]}]} */", Optional.empty(), null);
        assertEquals("", Evidence.knobs(plain, List.of(Fixtures.parent())));
        ProposalRequest request = ProposalRequest.builder(plain, new SplittableRandom(1)).context(Fixtures.CONTEXT)
                .relatives(List.of(Fixtures.parent())).build();
        assertFalse(PromptBuilderTest.builder(Fixtures.IMPROVE_ONLY).forProposal(request).user().contains("Knobs of"));
    }
}
