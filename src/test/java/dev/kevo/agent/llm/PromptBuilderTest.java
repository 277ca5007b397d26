package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RequestSlot;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.Defaults;
import dev.kevo.data.ModelSpec;
import dev.kevo.data.Precision;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Which template a request gets, and what each one is filled with. */
class PromptBuilderTest {

    static PromptBuilder builder(Map<String, Double> weights) {
        ModelSpec spec = Fixtures.spec("ollama", "http://127.0.0.1:1", null, b -> b.templates = weights);
        return new PromptBuilder(PromptTemplates.load(TestFiles.root().resolve(spec.prompts()), spec, "m"),
                spec.templates(), spec.repairRounds(), spec.temperature());
    }

    /** A model asked for a bf16 kernel is told the dtype, the header key and kevo.h's 16-bit types; float32 stays plain. */
    @Test
    void theSystemPromptStatesTheCampaignsDtype() {
        String fp32 = builder(Fixtures.IMPROVE_ONLY).forProposal(Fixtures.request()).system();
        assertTrue(fp32.contains("Element types: float32 (`const float* x`, `float* y`)."), fp32);
        assertTrue(fp32.contains("y[r, c] = exp(x[r, c] - max_r)"), "the operator's own task text: " + fp32);
        TaskContext c = Fixtures.CONTEXT;
        TaskContext bf16 = new TaskContext(c.device(), c.suite(), c.shapes(), Precision.BF16_FP32, c.baseline());
        ProposalRequest request = ProposalRequest.builder(Fixtures.parent(), new SplittableRandom(1)).context(bf16)
                .build();
        String system = builder(Fixtures.IMPROVE_ONLY).forProposal(request).system();
        assertTrue(system.contains("x in bf16 (`const kevo_bf16* x`) and y in fp32 (`float* y`)"), system);
        assertTrue(system.contains("`\"dtype\": \"bf16-fp32\"`"), system);
        assertFalse(system.contains("{{"), "every placeholder filled");
    }

    /**
     * The copy bandwidth a model is told is the bytes the copy really moved over its measured time: a bf16 copy of the
     * same shape in the same time moves half the bytes of a float32 one, so half the bandwidth (it once said float32's).
     */
    @Test
    void theCopyBandwidthCountsTheBytesOfTheCampaignsDtype() {
        String fp32 = builder(Fixtures.IMPROVE_ONLY).forProposal(Fixtures.request()).system();
        assertTrue(fp32.contains("measured copy bandwidth: 3.09 TB/s (a device-to-device copy of the 134.2 MB"), fp32);
        TaskContext c = Fixtures.CONTEXT;
        TaskContext bf16 = new TaskContext(c.device(), c.suite(), c.shapes(), Precision.BF16, c.baseline());
        String system = builder(Fixtures.IMPROVE_ONLY).forProposal(ProposalRequest.builder(Fixtures.parent(),
                new SplittableRandom(1)).context(bf16).build()).system();
        assertTrue(system.contains("measured copy bandwidth: 1.55 TB/s (a device-to-device copy of the 67.1 MB a "
                + "softmax bf16 of 4096x4096 moves"), system);
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
        assertTrue(p.transcript().startsWith("## system\n\nYou write CUDA kernels"));
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
    void aGenerationsRequestsFocusOnRegimesFurthestFromTheFloorFirst() {
        // The parent's floor: 0.86 on short rows, 0.56 on medium, 0.02 and 0.003 on long ones.
        List<String> subjects = new ArrayList<>();
        for (int variant = 0; variant < 4; variant++) {
            ProposalRequest r = Fixtures.request(Optional.empty(), List.of(), 5).withSlot(new RequestSlot(3, variant));
            PromptBuilder.Prompt p = builder(Map.of("explore", 1.0)).forProposal(r);
            subjects.add(p.subject().substring("explore ".length(), p.subject().indexOf(" rows")));
            if (variant == 0) {
                assertTrue(p.user().contains("long rows (cols > 16384)\nshapes: 1x10000000 (parent at floor 0.00), "
                        + "8x128256 (parent at floor 0.02)"), "worst shape first: " + p.user());
                assertEquals("long rows (cols > 16384): 1x10000000 (parent at floor 0.00), 8x128256 (parent at "
                        + "floor 0.02)", p.choice().focus());
            }
        }
        assertEquals(List.of("long", "medium", "short", "long"), subjects);
    }

    @Test
    void aParentsProfileIsShownWithItsParentAndOnlyWhenThereIsOne() {
        ProposalRequest plain = Fixtures.request();
        dev.kevo.data.Profile profile = new dev.kevo.data.Profile(List.of(new dev.kevo.data.Profile.Launch("1x1000000",
                "softmax_split", 41.0, 48.0, 12.0, List.of(new dev.kevo.data.Profile.Stall("long_scoreboard", 9.5)))),
                3.2, "ncu", "0 H100", "now", null);
        ProposalRequest profiled = new ProposalRequest(plain.context(), plain.parent(), plain.mate(),
                plain.inspirations(), plain.recentFailures(), plain.random(), plain.relatives(), plain.slot(),
                Optional.of(profile));
        String with = builder(Fixtures.IMPROVE_ONLY).forProposal(profiled).user();
        String without = builder(Fixtures.IMPROVE_ONLY).forProposal(plain).user();
        assertTrue(with.contains("Profile of the parent") && with.contains(
                "1x1000000 softmax_split: DRAM 41% of peak, achieved occupancy 48%") && with.contains("long_scoreboard 9.5"),
                with);
        assertTrue(!without.contains("Profile of the parent"), without);
        ProposalRequest failed = new ProposalRequest(plain.context(), plain.parent(), plain.mate(),
                plain.inspirations(), plain.recentFailures(), plain.random(), plain.relatives(), plain.slot(),
                Optional.of(new dev.kevo.data.Profile(List.of(), 1.0, "ncu", "0 H100", "now",
                        "no profile: ncu reported no launch; its report: /tmp/kevo-ncu-1.csv")));
        String none = builder(Fixtures.IMPROVE_ONLY).forProposal(failed).user();
        assertTrue(!none.contains("Profile of the parent") && !none.contains("kevo-ncu"), none);
    }

    @Test
    void improveNamesItsFocusAndEachVariantItsOwn() {
        ProposalRequest first = Fixtures.request().withSlot(new RequestSlot(3, 0));
        ProposalRequest second = Fixtures.request().withSlot(new RequestSlot(3, 1));
        PromptBuilder.Prompt a = builder(Map.of("improve", 1.0)).forProposal(first);
        PromptBuilder.Prompt b = builder(Map.of("improve", 1.0)).forProposal(second);
        assertTrue(a.user().contains("Look first at these shapes") && a.user().contains("long rows"), a.user());
        assertTrue(b.user().contains("medium rows"), b.user());
        assertNotEquals(a.user(), b.user());
        assertEquals("seed-online", a.choice().parent());
        assertEquals(List.of("g0004-i2-c1"), a.choice().inspirations());
        assertEquals(null, builder(Map.of("crossover", 1.0)).forProposal(Fixtures.request(
                Optional.of(Fixtures.inspiration()), List.of(), 3)).choice().focus(), "crossover shows no regime");
    }

    @Test
    void temperaturesSpreadAroundTheConfigsAndStayInRange() {
        assertEquals(List.of(0.7, 0.9, 0.5, 1.1, 0.3, 0.7), java.util.stream.IntStream.range(0, 6)
                .mapToObj(v -> PromptBuilder.temperature(0.7, v)).toList());
        assertEquals(List.of(0.0, 0.2, 0.0), java.util.stream.IntStream.range(0, 3)
                .mapToObj(v -> PromptBuilder.temperature(0.0, v)).toList());
        assertEquals(null, PromptBuilder.temperature(null, 4), "a provider default is left alone");
    }
}
