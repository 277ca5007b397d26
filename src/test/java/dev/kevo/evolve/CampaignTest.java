package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.agent.Agent;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.worker.WorkerPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The campaign loop with a test double for the GPU: selection, islands, cache, storage, crash and resume. */
class CampaignTest {
    private static final Pattern GENE = Pattern.compile("#define GENE (\\d+)");

    /** A kernel whose "quality" is the number in its GENE line; the fake evaluator scores it from that. */
    static String kernel(int gene) {
        return """
                /*@kevo {"plans": [{"launches": [{"kernel": "k", "grid": "rows", "block": 32, "args": ["x", "y"]}]}]} */
                #define GENE %d
                extern "C" __global__ void k(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x] * GENE; }
                """.formatted(gene);
    }

    static int gene(String source) {
        Matcher m = GENE.matcher(source);
        assertTrue(m.find());
        return Integer.parseInt(m.group(1));
    }

    /** Mutates the gene by a small random step; crossover averages; genes divisible by 7 are "broken". */
    static class FakeAgent implements Agent {
        @Override
        public String name() {
            return "fake";
        }

        @Override
        public Proposal propose(ProposalRequest request) {
            int g = gene(request.parent().source());
            if (request.mate().isPresent()) {
                int h = gene(request.mate().get().source());
                return new Proposal(kernel((g + h) / 2 + 1), Optional.empty(), "crossover", "average " + g + "," + h,
                        Optional.empty());
            }
            int child = Math.max(1, g + request.random().nextInt(-2, 6));
            return new Proposal(kernel(child), Optional.empty(), "mutate", "gene " + g + "->" + child,
                    Optional.empty());
        }
    }

    /**
     * Scores by gene; multiples of 7 are wrong results. Throws after a given number of evaluations, like a kill;
     * confirmations (counted apart) judge alike.
     */
    static final class FakeGpu implements Judge {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger confirmations = new AtomicInteger();
        final int killAfter;

        FakeGpu(int killAfter) {
            this.killAfter = killAfter;
        }

        @Override
        public CandidateResult evaluate(KernelFile file, long inputSeed) {
            if (calls.incrementAndGet() > killAfter) {
                throw new Killed();
            }
            return judge(file, inputSeed);
        }

        @Override
        public CandidateResult confirm(KernelFile file, long inputSeed) {
            confirmations.incrementAndGet();
            return judge(file, inputSeed);
        }

        static CandidateResult judge(KernelFile file, long inputSeed) {
            int g = gene(file.source());
            if (g % 7 == 0) {
                return CandidateResult.rejected(file.name(), null, null, Verdict.WRONG_RESULT, "gene " + g, inputSeed);
            }
            return CandidateResult.builder(file.name(), Verdict.PASS, inputSeed).score(1.0 + g / 100.0, 0.5)
                    .compiled(1.0, null, null).evaluationMs(1.0).build();
        }
    }

    static final class Killed extends RuntimeException {
    }

    static CampaignConfig config(int generations) {
        return CampaignConfig.builder().name("t").suite("tiny").baseline("b").randomSeed(42L).islands(3)
                .population(4).childrenPerGeneration(3).migrationInterval(2)
                .selection(new CampaignConfig.Selection(2, 1, 0.3))
                .agents(List.of(new CampaignConfig.AgentWeight("fake", 1.0, null)))
                .stop(new CampaignConfig.Stop(0, 0.0, generations, 0, 0.0)).build().validated();
    }

    static CampaignStore store(Path dir, CampaignConfig config) {
        return CampaignStore.create(dir, FrozenCampaign.of("test", "now", config, EvalSettings.defaults(), "tiny",
                List.of("4x100"), "b"), kernel(1));
    }

    static List<KernelFile> seeds() {
        return List.of(ContractParser.parse("one.cu", null, kernel(3)), ContractParser.parse("two.cu", null, kernel(10)));
    }

    static CampaignState run(CampaignStore store, CampaignConfig config, Judge gpu) {
        return new Campaign(config, store, gpu, new AgentPool(config.agents(), Map.of("fake", new FakeAgent())),
                seeds(), null, CampaignListener.NONE, () -> 0L).run();
    }

    static Map<String, String> outcome(CampaignStore store) {
        return store.mutants().stream().collect(Collectors.toMap(MutantRecord::id,
                m -> m.result().verdict().id() + " " + m.fitness() + " " + m.parents() + " " + m.sourceHash(),
                (a, b) -> a, TreeMap::new));
    }

    @Test
    void aCampaignImprovesSavesEverythingAndNamesItsChampion(@TempDir Path dir) throws Exception {
        CampaignConfig config = config(6);
        CampaignStore store = store(dir.resolve("c"), config);
        CampaignState state = run(store, config, new FakeGpu(Integer.MAX_VALUE));
        assertEquals(6, state.generation());
        assertEquals(3, state.islands().size());
        MutantRecord champion = store.mutant(state.bestId()).orElseThrow();
        assertTrue(champion.fitness() > 1.10, "better than the best seed (gene 10): " + champion.fitness());
        assertEquals(gene(store.source(champion.id())), gene(Files.readString(dir.resolve("c/champion.cu"))));
        for (MutantRecord m : store.mutants()) {
            assertTrue(Files.exists(dir.resolve("c/" + m.id() + ".cu")), m.id());
            m.parents().forEach(p -> assertTrue(store.mutant(p).isPresent(), m.id() + " has parent " + p));
        }
        List<String> events = Files.readAllLines(dir.resolve("c/events.jsonl"));
        assertTrue(events.getFirst().contains("\"started\""));
        assertTrue(events.getLast().contains("\"finished\""));
        assertTrue(events.stream().anyMatch(e -> e.contains("\"migrated\"")), "migration every 2 generations");
    }

    @Test
    void identicalSourcesAreJudgedOnce(@TempDir Path dir) {
        CampaignConfig config = config(5);
        CampaignStore store = store(dir.resolve("c"), config);
        FakeGpu gpu = new FakeGpu(Integer.MAX_VALUE);
        CampaignState state = run(store, config, gpu);
        List<MutantRecord> all = store.mutants();
        long distinct = all.stream().map(MutantRecord::sourceHash).distinct().count();
        assertEquals(distinct, gpu.calls.get(), "one GPU evaluation per distinct source");
        assertEquals(Campaign.CONTENDERS, gpu.confirmations.get(), "and the best few judged again at the end");
        assertTrue(all.stream().anyMatch(m -> m.cachedFrom() != null), "small gene steps repeat sources");
        assertEquals(gpu.calls.get(), state.evaluations());
    }

    @ParameterizedTest(name = "killed after {0} evaluations")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 7, 9, 11, 13, 15})
    void aKilledCampaignResumesToTheSameResultAsAnUninterruptedOne(int killAfter, @TempDir Path dir) {
        CampaignConfig config = config(4);
        CampaignStore reference = store(dir.resolve("reference"), config);
        run(reference, config, new FakeGpu(Integer.MAX_VALUE));

        CampaignStore killed = store(dir.resolve("killed"), config);
        assertThrows(Killed.class, () -> run(killed, config, new FakeGpu(killAfter)));
        FakeGpu second = new FakeGpu(Integer.MAX_VALUE);
        CampaignState resumed = run(CampaignStore.open(dir.resolve("killed")), config, second);

        assertEquals(outcome(reference), outcome(killed), "same mutants, verdicts, scores and parents");
        assertEquals(reference.state().orElseThrow().islands(), resumed.islands());
        assertEquals(reference.state().orElseThrow().evaluations(), resumed.evaluations());
        long firstRunJudged = Math.min(killAfter, outcome(reference).values().stream().map(v -> v.split(" ")[3])
                .distinct().count());
        assertNotNull(resumed.bestId());
        assertTrue(second.calls.get() <= outcome(reference).size() - firstRunJudged + 1,
                "at most the evaluation in flight is repeated");
    }

    /** The fake agent, saying that it proposes offline (it does: its proposals are its requests' alone). */
    static final class OfflineAgent extends FakeAgent {
        @Override
        public boolean proposesOffline() {
            return true;
        }
    }

    /** Judges as {@link FakeGpu}, keeping every candidate it judged and every one it was asked to compile ahead. */
    static final class DrawingGpu implements Judge {
        final FakeGpu gpu = new FakeGpu(Integer.MAX_VALUE);
        final Set<String> judged = ConcurrentHashMap.newKeySet();
        final List<String> ahead = new CopyOnWriteArrayList<>();
        final AtomicInteger aheadCalls = new AtomicInteger();
        /** The latest generation any judged candidate belongs to, and candidates drawn from no later one. */
        final AtomicInteger latestJudged = new AtomicInteger();
        final List<String> drawnTooLate = new CopyOnWriteArrayList<>();

        private static String key(KernelFile file, long inputSeed) {
            return file.name() + " " + inputSeed + " " + file.source().hashCode();
        }

        private static int generation(KernelFile file) {
            Matcher m = Pattern.compile("^g(\\d{4})-").matcher(file.name());
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        }

        @Override
        public CandidateResult evaluate(KernelFile file, long inputSeed) {
            latestJudged.accumulateAndGet(generation(file), Math::max);
            judged.add(key(file, inputSeed));
            return gpu.evaluate(file, inputSeed);
        }

        @Override
        public CandidateResult confirm(KernelFile file, long inputSeed) {
            return gpu.confirm(file, inputSeed);
        }

        @Override
        public void compileAhead(List<WorkerPool.Ahead> candidates) {
            aheadCalls.incrementAndGet();
            for (WorkerPool.Ahead a : candidates) {
                ahead.add(key(a.file(), a.inputSeed()));
                if (generation(a.file()) <= latestJudged.get()) {
                    drawnTooLate.add(a.file().name() + " while generation " + latestJudged.get() + " was judged");
                }
            }
        }
    }

    @Test
    void drawingTheNextGenerationAheadChangesNothingItMakesAndItsChildrenFindTheirCompiles(@TempDir Path dir)
            throws Exception {
        CampaignConfig config = config(6);
        CampaignStore plain = store(dir.resolve("plain"), config);
        DrawingGpu online = new DrawingGpu();
        run(plain, config, online);
        assertEquals(0, online.aheadCalls.get(), "an agent that does not propose offline is never drawn from ahead");

        CampaignStore drawn = store(dir.resolve("drawn"), config);
        DrawingGpu gpu = new DrawingGpu();
        new Campaign(config, drawn, gpu, new AgentPool(config.agents(), Map.of("fake", new OfflineAgent())),
                seeds(), null, CampaignListener.NONE, () -> 0L).run();
        assertEquals(outcome(plain), outcome(drawn), "the same mutants, verdicts, scores and parents");
        assertEquals(5, gpu.aheadCalls.get(), "a draw in every generation but the last");
        assertEquals(List.of(), gpu.drawnTooLate, "only children of the generation to come are drawn");
        List<String> found = gpu.ahead.stream().filter(gpu.judged::contains).toList();
        assertTrue(gpu.ahead.size() >= gpu.aheadCalls.get(), "a draw finds children to draw: " + gpu.ahead);
        assertTrue(found.size() * 2 >= gpu.ahead.size(), "most candidates drawn ahead were then judged as drawn: "
                + found.size() + " of " + gpu.ahead);
        assertTrue(Files.readAllLines(dir.resolve("drawn/events.jsonl")).stream()
                .anyMatch(e -> e.contains("\"drawn-ahead\"")), "each draw is an event");
    }

    @Test
    void tournamentPrefersTheFitAndSurvivorsKeepTheElite() {
        MutantRecord weak = record("a", 1.0);
        MutantRecord strong = record("b", 2.0);
        MutantRecord failed = MutantRecord.builder("c").generation(1).agent("fake").operator("mutate").sourceHash("hc")
                .result(CandidateResult.rejected("c", null, null, Verdict.NAN_OUTPUT, "", 0)).build();
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        int strongWins = 0;
        for (int i = 0; i < 1000; i++) {
            if (Selection.tournament(List.of(weak, strong, failed), 2, random) == strong) {
                strongWins++;
            }
        }
        assertTrue(strongWins > 500 && strongWins < 700, "about 1 - (2/3)^2 = 56%: " + strongWins);
        List<MutantRecord> next = Selection.survivors(List.of(weak, strong), List.of(failed, record("d", 1.5)), 2, 1);
        assertEquals(List.of("b", "d"), next.stream().map(MutantRecord::id).toList());
    }

    private static MutantRecord record(String id, double score) {
        return MutantRecord.builder(id).generation(1).agent("fake").operator("mutate").sourceHash("h" + id)
                .result(CandidateResult.builder(id, Verdict.PASS, 0).score(score, 0.5).compiled(1.0, null, null)
                        .build()).build();
    }
}
