package dev.kevo.evolve;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.agent.Agent;
import dev.kevo.agent.BuiltinAgent;
import dev.kevo.agent.Candidate;
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
import dev.kevo.task.Knobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A campaign from a knobbed seed with the built-in agent's own genomes off: every child is the seed re-tuned,
 * judged by a GPU double whose score depends only on the knob values the judged file carries.
 */
class KnobCampaignTest {

    static final String SEED = """
            /*@kevo
            { "description": "knobbed seed",
              "knobs": { "BLOCK": { "values": [32, 64, 128, 256, 512, 1024], "value": 64 },
                         "VEC": { "values": [1, 2, 4, 8], "value": 1 },
                         "SHORT_MAX": { "range": [256, 4096, 256], "value": 512 } },
              "knob_rule": "BLOCK * VEC <= 4096",
              "plans": [ { "when": "cols <= SHORT_MAX",
                           "launches": [ { "kernel": "k", "grid": "rows", "block": "BLOCK", "args": ["x", "y"] } ] },
                         { "launches": [ { "kernel": "k", "grid": "rows", "block": 1024, "args": ["x", "y"] } ] } ] }
            */
            extern "C" __global__ void k(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x] * VEC; }
            """;

    /** Best at BLOCK 512, VEC 4, SHORT_MAX 2048; a combination the rule forbids must never reach it. */
    static final class KnobGpu implements Judge {
        final AtomicInteger calls = new AtomicInteger();
        final int killAfter;

        KnobGpu(int killAfter) {
            this.killAfter = killAfter;
        }

        @Override
        public CandidateResult evaluate(KernelFile file, long inputSeed) {
            if (calls.incrementAndGet() > killAfter) {
                throw new CampaignTest.Killed();
            }
            Map<String, Long> v = file.knobs().numbers();
            assertTrue(file.knobs().allowed(), "judged only allowed combinations: " + file.knobs().describe());
            double score = 3.0 - Math.abs(Math.log(v.get("BLOCK") / 512.0) / Math.log(2)) * 0.2
                    - Math.abs(Math.log(v.get("VEC") / 4.0) / Math.log(2)) * 0.15
                    - Math.abs(v.get("SHORT_MAX") - 2048) / 256.0 * 0.05;
            return CandidateResult.builder(file.name(), Verdict.PASS, inputSeed).score(score, 0.5)
                    .compiled(1.0, null, null).evaluationMs(1.0).build();
        }
    }

    static CampaignConfig config(int generations) {
        return CampaignConfig.builder().name("k").suite("tiny").baseline("b").randomSeed(7L).islands(2)
                .population(4).childrenPerGeneration(3).migrationInterval(2)
                .selection(new CampaignConfig.Selection(2, 1, 0.3))
                .stop(new CampaignConfig.Stop(0, 0.0, generations, 0, 0.0)).freshGenomes(false).build().validated();
    }

    static CampaignStore store(Path dir, CampaignConfig config) {
        return CampaignStore.create(dir, FrozenCampaign.of("test", "now", config, EvalSettings.defaults(), "tiny",
                List.of("4x100"), "b"), CampaignTest.kernel(1));
    }

    static CampaignState run(CampaignStore store, CampaignConfig config, Judge gpu) {
        return new Campaign(config, store, gpu, new AgentPool(config.agents(),
                Map.of("builtin", new BuiltinAgent(config.freshGenomes()))),
                List.of(ContractParser.parse("knobbed.cu", null, SEED)), null, CampaignListener.NONE, () -> 0L).run();
    }

    @Test
    void freshGenomesIsOnUnlessTheConfigTurnsItOff(@TempDir Path dir) throws Exception {
        assertEquals(Boolean.TRUE, CampaignTest.config(1).freshGenomes());
        assertEquals(Boolean.FALSE, config(1).freshGenomes());
        Path yaml = dir.resolve("c.yaml");
        Files.writeString(yaml, "fresh_genomes: false\nstop:\n  generations: 1\n");
        assertEquals(Boolean.FALSE, CampaignConfig.load(yaml).freshGenomes());
        Files.writeString(yaml, "stop:\n  generations: 1\n");
        assertEquals(Boolean.TRUE, CampaignConfig.load(yaml).freshGenomes());
    }

    @Test
    void theSeedsChildrenAreTunedAndTheChampionReproducesFromItsFile(@TempDir Path dir) throws Exception {
        CampaignConfig config = config(8);
        Path folder = dir.resolve("c");
        CampaignStore store = store(folder, config);
        CampaignState state = run(store, config, new KnobGpu(Integer.MAX_VALUE));
        List<MutantRecord> children = store.mutants().stream().filter(m -> !m.operator().equals("seed")).toList();
        assertTrue(children.size() >= 20, "children: " + children.size());
        Set<String> operators = children.stream().map(MutantRecord::operator).collect(Collectors.toSet());
        assertTrue(Set.of("tune", "tune-crossover").containsAll(operators), operators::toString);
        assertTrue(operators.contains("tune"), operators::toString);
        children.forEach(m -> assertTrue(m.genome() == null, m.id() + " has no genome: fresh genomes are off"));

        MutantRecord champion = store.mutant(state.bestId()).orElseThrow();
        MutantRecord seed = store.mutant("seed-knobbed").orElseThrow();
        assertTrue(champion.fitness() > seed.fitness() + 0.3, champion.fitness() + " vs seed " + seed.fitness());
        // The stored file alone carries the values it was judged with: judging it again gives the same score.
        KernelFile stored = ContractParser.read(store.sourcePath(champion.id()));
        assertEquals(champion.fitness(), new KnobGpu(Integer.MAX_VALUE).evaluate(stored, 1).score().speedup(),
                1e-12);
        Knobs seedKnobs = ContractParser.parse("s.cu", null, SEED).knobs();
        assertEquals(SEED.replaceAll("\"value\": \\d+", "V"), store.source(champion.id())
                .replaceAll("\"value\": \\d+", "V"), "only the header's values differ from the seed");
        assertTrue(!stored.knobs().movesFrom(seedKnobs).isEmpty());

        Outcome lineage = kevo("lineage", folder.toString());
        assertEquals(0, lineage.code(), lineage.err());
        MutantRecord first = store.mutant(new dev.kevo.report.Lineage(store.mutants(), champion.id()).line().get(1)
                .id()).orElseThrow();
        assertTrue(lineage.out().contains(first.operator()), lineage.out());
        assertTrue(lineage.out().contains(first.operator().equals("tune") ? "knobs " + first.summary()
                : first.summary()), lineage.out());
        assertTrue(lineage.out().matches("(?s).*(BLOCK|VEC|SHORT_MAX) \\d+->\\d+.*"), lineage.out());
        String json = kevo("lineage", folder.toString(), "--format", "json").out();
        assertTrue(json.contains("\"step\" : \"tuning\""), json);
        assertTrue(json.contains("\"step\" : \"seed\""), json);
        Outcome show = kevo("show", folder.toString());
        assertTrue(show.out().contains("by step: seed 1, tuning " + children.size()), show.out());
    }

    @Test
    void agentsSeeTheBestKnobbedKernelsOfEarlierGenerations(@TempDir Path dir) {
        CampaignConfig config = config(3);
        List<ProposalRequest> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        BuiltinAgent builtin = new BuiltinAgent(false);
        Agent recording = new Agent() {
            @Override
            public String name() {
                return "builtin";
            }

            @Override
            public Proposal propose(ProposalRequest request) {
                seen.add(request);
                return builtin.propose(request);
            }
        };
        CampaignStore store = store(dir.resolve("c"), config);
        new Campaign(config, store, new KnobGpu(Integer.MAX_VALUE), new AgentPool(config.agents(),
                Map.of("builtin", recording)), List.of(ContractParser.parse("knobbed.cu", null, SEED)), null,
                CampaignListener.NONE, () -> 0L).run();
        assertEquals(18, seen.size(), "2 islands x 3 children x 3 generations");
        // One list per generation, taken at its start: whichever child finishes first, its siblings see the same.
        long lists = seen.stream().map(r -> r.relatives().stream().map(Candidate::id).toList()).distinct().count();
        assertTrue(lists >= 2 && lists <= 3, "distinct relatives lists: " + lists);
        for (ProposalRequest r : seen) {
            assertTrue(!r.relatives().isEmpty(), "the seed at least");
            List<Double> scores = r.relatives().stream().map(c -> c.result().score().speedup()).toList();
            assertEquals(scores.stream().sorted(java.util.Comparator.reverseOrder()).toList(), scores, "best first");
            r.relatives().forEach(c -> assertTrue(c.source().contains("\"knobs\"") && c.result().passed()));
        }
    }

    static Map<String, String> outcome(CampaignStore store) {
        return store.mutants().stream().collect(Collectors.toMap(MutantRecord::id,
                m -> m.result().verdict().id() + " " + m.fitness() + " " + m.parents() + " " + m.sourceHash() + " "
                        + m.summary(), (a, b) -> a, TreeMap::new));
    }

    @ParameterizedTest(name = "killed after {0} evaluations")
    @ValueSource(ints = {1, 4, 9, 14})
    void aKilledTuningCampaignResumesToTheSameChildren(int killAfter, @TempDir Path dir) {
        CampaignConfig config = config(4);
        CampaignStore reference = store(dir.resolve("reference"), config);
        run(reference, config, new KnobGpu(Integer.MAX_VALUE));
        CampaignStore killed = store(dir.resolve("killed"), config);
        assertThrows(CampaignTest.Killed.class, () -> run(killed, config, new KnobGpu(killAfter)));
        run(CampaignStore.open(dir.resolve("killed")), config, new KnobGpu(Integer.MAX_VALUE));
        assertEquals(outcome(reference), outcome(killed));
    }
}
