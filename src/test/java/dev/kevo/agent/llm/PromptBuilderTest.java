package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.agent.Candidate;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RequestSlot;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.Defaults;
import dev.kevo.data.ModelSpec;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    void aGenerationsRequestsFocusWhereTheParentLosesMostToTheFloor() {
        // The parent's floor: 0.86 on short rows, 0.56 on medium, 0.02 and 0.003 on long ones: the long rows cost the
        // score about 9.8 in log time, the medium 0.6 and the short 0.15, so every variant looks at the long rows.
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
        assertEquals(List.of("long", "long", "long", "long"), subjects);
    }

    /** A passing parent whose floor fraction on each shape is given, and the suite of those shapes. */
    private static String focus(Map<String, Double> floors, int variant) {
        List<ShapeResult> shapes = floors.entrySet().stream()
                .map(e -> Fixtures.timed(e.getKey(), 100, 100, 100 * e.getValue())).toList();
        Candidate parent = new Candidate("p", Fixtures.recordedParent(), Optional.empty(),
                Fixtures.result(Verdict.PASS, null, 1.0, 0.5, null, List.of(), shapes));
        TaskContext c = Fixtures.CONTEXT;
        TaskContext context = new TaskContext(c.device(), "s", floors.keySet().stream().map(Shape::parse).toList(),
                c.task(), c.baseline());
        String regime = PromptBuilder.regime(context, parent, variant);
        return regime.substring(0, regime.indexOf(" rows"));
    }

    private static List<String> foci(Map<String, Double> floors, int variants) {
        return java.util.stream.IntStream.range(0, variants).mapToObj(v -> focus(floors, v)).toList();
    }

    /**
     * Issue 44's prompts: a parent at 0.93-0.98 of the floor on short and medium rows and at 0.00-0.21 on long ones.
     * Every request of the generation looks at the long rows (the focus once cycled through all three, so the second
     * and third requests asked about shapes within a few percent of the floor).
     */
    @Test
    void noRequestLooksAtShapesNearTheFloorWhileOthersSitFarBelowIt() {
        Map<String, Double> floors = new LinkedHashMap<>();
        floors.put("32x128", 0.95);
        floors.put("4096x1024", 0.97);
        floors.put("1024x4096", 0.93);
        floors.put("4096x8192", 0.98);
        floors.put("8x128256", 0.21);
        floors.put("1x1000000", 0.004);
        assertEquals(List.of("long", "long", "long", "long", "long", "long"), foci(floors, 6));
    }

    /** A regime's cost is the sum over its shapes of what each loses to the floor: shapes, not averages, count. */
    @Test
    void aRegimeOfManyShapesBelowTheFloorComesBeforeOneOfAFewFurtherBelow() {
        Map<String, Double> floors = new LinkedHashMap<>();
        floors.put("4096x4096", 0.5);     // medium: one shape, 0.69 in log time
        floors.put("64x32768", 0.6);      // long: three shapes, 1.53 in all
        floors.put("16x65536", 0.6);
        floors.put("4x131072", 0.6);
        floors.put("32x128", 0.97);       // short: 0.03, never a focus beside them
        assertEquals(List.of("long", "medium", "long", "medium"), foci(floors, 4));
    }

    /** Where the regimes lose about as much, the requests of a generation still look at each of them in turn. */
    @Test
    void regimesThatCostAboutAsMuchTakeTurns() {
        Map<String, Double> floors = new LinkedHashMap<>();
        floors.put("32x128", 0.5);
        floors.put("4096x4096", 0.45);
        floors.put("8x128256", 0.55);
        assertEquals(List.of("medium", "short", "long", "medium"), foci(floors, 4));
        assertEquals(0.0, PromptBuilder.cost(1.2), "past the floor there is nothing to win");
        assertTrue(Double.isFinite(PromptBuilder.cost(0.0)), "a shape at 0.00 costs much, not everything");
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
        // long rows at 0.10 and 0.20 of the floor, medium at 0.30: both worth a request, short rows (0.86) are not
        Candidate parent = Fixtures.parent();
        List<ShapeResult> shapes = List.of(Fixtures.timed("32x128", 5.1, 5.2, 4.4),
                Fixtures.timed("4096x4096", 100, 80.4, 30), Fixtures.timed("8x128256", 100, 315.4, 20),
                Fixtures.timed("1x10000000", 100, 316.6, 10));
        Candidate spread = new Candidate(parent.id(), parent.source(), Optional.empty(), Fixtures.result(Verdict.PASS,
                null, 1.52, 0.23, null, parent.result().kernels(), shapes));
        ProposalRequest first = ProposalRequest.builder(spread, new SplittableRandom(1)).context(Fixtures.CONTEXT)
                .inspirations(List.of(Fixtures.inspiration())).build().withSlot(new RequestSlot(3, 0));
        ProposalRequest second = first.withSlot(new RequestSlot(3, 1));
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
