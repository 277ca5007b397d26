package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.data.Defaults;
import dev.kevo.data.ModelSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which template a request gets, and what each one is filled with. */
class PromptBuilderTest {

    static PromptBuilder builder(Map<String, Double> weights) {
        ModelSpec spec = Fixtures.spec("ollama", "http://127.0.0.1:1", null, b -> b.templates = weights);
        return new PromptBuilder(PromptTemplates.load(TestFiles.root().resolve(spec.prompts()), spec, "m"),
                spec.templates(), spec.repairRounds());
    }

    @Test
    void twoParentsMakeACrossoverWithBothKernelsShown() {
        PromptBuilder.Prompt p = builder(Defaults.TEMPLATES)
                .forProposal(Fixtures.request(Optional.of(Fixtures.inspiration()), List.of(), 3));
        assertEquals("crossover", p.template());
        assertEquals("crossover with g0004-i2-c1", p.subject());
        assertTrue(p.user().contains("### Parent `seed-online`"), p.user());
        assertTrue(p.user().contains("### Second parent `g0004-i2-c1`: pass, score 2.390x"), p.user());
        assertTrue(p.user().contains("softmax_rows"), "the second parent's source");
        assertEquals(Fixtures.parent().source(), p.base(), "SEARCH blocks apply to the first parent");
        assertTrue(p.transcript().startsWith("## system\n\nYou write CUDA softmax kernels"));
        assertTrue(p.transcript().contains("\n## user\n\nCombine the strengths"));
    }

    @Test
    void aFixNeedsAFailureAndEditsIt() {
        Map<String, Double> weights = Map.of("improve", 1.0, "fix", 1.0);
        Map<String, Integer> without = new HashMap<>();
        Map<String, Integer> with = new HashMap<>();
        for (long seed = 0; seed < 60; seed++) {
            without.merge(builder(weights).forProposal(Fixtures.request(Optional.empty(), List.of(), seed))
                    .template(), 1, Integer::sum);
            PromptBuilder.Prompt p = builder(weights).forProposal(Fixtures.request(Optional.empty(),
                    List.of(Fixtures.wrongResult(), Fixtures.compileFailure()), seed));
            with.merge(p.template(), 1, Integer::sum);
            if (p.template().equals("fix")) {
                assertEquals(Fixtures.compileFailure().source(), p.base(), "the most recent failure is fixed");
                assertEquals("fix of g0003-i1-c2 (compile-error)", p.subject());
                assertTrue(p.user().contains("### Failing kernel `g0003-i1-c2`: compile-error"), p.user());
            }
        }
        assertEquals(Map.of("improve", 60), without, "nothing to fix");
        assertTrue(with.get("fix") > 15 && with.get("improve") > 15, "about half each: " + with);
    }

    @Test
    void exploreGoesWhereTheParentIsFurthestFromTheFloor() {
        Map<String, Integer> regimes = new HashMap<>();
        for (long seed = 0; seed < 200; seed++) {
            ProposalRequest r = Fixtures.request(Optional.empty(), List.of(), seed);
            PromptBuilder.Prompt p = builder(Map.of("explore", 1.0)).forProposal(r);
            String regime = p.subject().replace("explore ", "");
            regimes.merge(regime.substring(0, regime.indexOf(" rows")), 1, Integer::sum);
            if (regime.startsWith("long")) {
                assertTrue(p.user().contains("long rows (cols > 16384)\nshapes: 8x128256 (parent at floor 0.02), "
                        + "1x10000000 (parent at floor 0.00)"), p.user());
            }
        }
        // The parent's floor: 0.86 on short rows, 0.56 on medium, 0.02 and 0.003 on long ones.
        assertTrue(regimes.get("long") > regimes.get("medium") && regimes.get("medium") > regimes.get("short"),
                "" + regimes);
    }
}
