package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.agent.TaskContext;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Precision;
import dev.kevo.data.Screen;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Stats;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cascade in a campaign: who gets a screen, what sets its bar, and what a screened child may not become. */
class CascadeTest {
    private static final List<Shape> SHAPES = List.of(new Shape(4, 100), new Shape(8, 200), new Shape(16, 300),
            new Shape(32, 400), new Shape(64, 500));

    /**
     * Times gene g at a memory floor of g/100 on every shape (score 1 + g/100); under a screen, a kernel below the bar
     * is screened with only the screen's shapes timed, as the evaluator does.
     */
    static class Floors implements Judge {
        final Map<String, Screen> screens = new ConcurrentHashMap<>();
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public CandidateResult evaluate(KernelFile file, long inputSeed) {
            return evaluate(file, inputSeed, null);
        }

        @Override
        public CandidateResult evaluate(KernelFile file, long inputSeed, Screen screen) {
            calls.incrementAndGet();
            if (screen != null) {
                screens.put(file.name(), screen);
            }
            double floor = CampaignTest.gene(file.source()) / 100.0;
            boolean screened = screen != null && floor < screen.floorBar();
            List<ShapeResult> shapes = SHAPES.stream().map(s -> !screened || screen.shapes().contains(s.toString())
                    ? timed(s, floor) : ShapeResult.checked(s.toString(), 1, 0, 0, null)).toList();
            CandidateResult.Builder b = CandidateResult.builder(file.name(),
                    screened ? Verdict.SCREENED : Verdict.PASS, inputSeed).shapes(shapes).screen(screen);
            return (screened ? b : b.score(1.0 + floor, floor)).compiled(1.0, null, null).evaluationMs(1.0).build();
        }

        private static ShapeResult timed(Shape s, double floor) {
            Stats copy = new Stats(5, 0.010, 0.010, 0.010, 0.010, 0.010, 0.010);
            Stats kernel = new Stats(5, 0.010 / floor, 0.010 / floor, 0.010 / floor, 0.010 / floor, 0.010 / floor,
                    0.010 / floor);
            return ShapeResult.checked(s.toString(), 1, 0, 0, null).withTiming(kernel, copy, copy, "kernel");
        }
    }

    private static CampaignState run(CampaignStore store, CampaignConfig config, Judge judge) {
        TaskContext context = new TaskContext(null, "five", SHAPES, Precision.FP32, "b");
        return new Campaign(config, store, judge, new AgentPool(config.agents(),
                Map.of("fake", new CampaignTest.FakeAgent())), CampaignTest.seeds(), context, CampaignListener.NONE,
                () -> 0L).run();
    }

    @Test
    void childrenAreScreenedAgainstTheirIslandsBestAndAScreenedChildNeitherSurvivesNorWins(@TempDir Path dir) {
        CampaignConfig config = CampaignTest.config(6).toBuilder().cascade(new CampaignConfig.Cascade(2, 0.1))
                .build().validated();
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        Floors judge = new Floors();
        CampaignState state = run(store, config, judge);

        assertFalse(judge.screens.isEmpty(), "children were sent a screen");
        List<String> expectedShapes = Breeding.cascadeShapes(SHAPES, 2);
        List<MutantRecord> all = store.mutants();
        for (MutantRecord m : all) {
            Screen screen = judge.screens.get(m.id() + ".cu");
            if (m.generation() == 0) {
                assertEquals(null, screen, "seeds are timed on every shape: " + m.id());
                continue;
            }
            if (screen == null) {
                continue;
            }
            assertEquals(expectedShapes, screen.shapes());
            MutantRecord best = store.mutant(screen.against()).orElseThrow();
            assertTrue(best.passed() && best.generation() < m.generation(), m.id() + " screened against " + best.id());
            assertEquals(best.result().score().floorFraction() * 0.9, screen.floorBar(), 1e-9, "the bar is 0.9 x its floor");
        }
        List<MutantRecord> screened = all.stream().filter(m -> m.result().verdict() == Verdict.SCREENED).toList();
        assertFalse(screened.isEmpty(), "some children fell below the bar");
        MutantRecord champion = store.mutant(state.bestId()).orElseThrow();
        assertTrue(champion.passed(), champion.id());
        List<String> members = state.islands().stream().flatMap(List::stream).toList();
        for (MutantRecord m : screened) {
            assertFalse(members.contains(m.id()) && all.stream().filter(MutantRecord::passed).count() >= 4,
                    m.id() + " survives while passing kernels could fill its place");
        }
        assertEquals(judge.calls.get() - Campaign.CONTENDERS, state.evaluations(),
                "a screened child is an evaluation (the contenders are judged again at the end)");
    }

    @Test
    void theStandardSuitesCascadeShapesSpanItsRowLengths() {
        List<Shape> standard = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/standard.yaml")).shapes();
        assertEquals(List.of("1823x781", "512x4096", "4096x32000", "512x262144"), Breeding.cascadeShapes(standard, 4),
                "the shapes docs/campaigns.md names");
        assertEquals(List.of(), Breeding.cascadeShapes(standard, 0));
        assertEquals(standard.size(), Breeding.cascadeShapes(standard, 99).size(), "never more than the suite");
    }

    @Test
    void withTheCascadeOffNoChildIsScreened(@TempDir Path dir) {
        CampaignConfig config = CampaignTest.config(3).toBuilder().cascade(new CampaignConfig.Cascade(0, 0.1))
                .build().validated();
        Floors judge = new Floors();
        run(CampaignTest.store(dir.resolve("c"), config), config, judge);
        assertTrue(judge.screens.isEmpty(), judge.screens.keySet().toString());
    }
}
