package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Knob;
import dev.kevo.task.KnobRewriter;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KnobTunerTest {

    /** Most BLOCK x VEC combinations break the rule, so a tuner that ignored it would soon be caught. */
    private static final String RULED = """
            /*@kevo
            { "description": "ruled",
              "knobs": { "BLOCK": { "values": [64, 128, 256, 512, 1024], "value": 256 },
                         "VEC": { "values": [1, 2, 4, 8], "value": 2 },
                         "SPLIT": { "range": [1, 8], "value": 4 },
                         "MODE": { "values": ["A", "B", "C"], "value": "A" } },
              "knob_rule": "BLOCK * VEC <= 512 && SPLIT * VEC <= 8",
              "plans": [ { "launches": [ { "kernel": "k", "grid": "rows", "block": "BLOCK", "args": ["x", "y", "cols"] } ] } ] }
            */
            #include "kevo.h"
            extern "C" __global__ void k(const float* x, float* y, int cols) { }
            """;

    private static Candidate candidate(String id, String source) {
        return new Candidate(id, source, Optional.empty(), null);
    }

    private static ProposalRequest request(Candidate parent, Optional<Candidate> mate, List<Candidate> failures,
                                           long seed) {
        return ProposalRequest.builder(parent, new SplittableRandom(seed)).mate(mate).recentFailures(failures).build();
    }

    /** The source with every knob's current value blanked: what must stay the same between parent and child. */
    private static String withoutValues(String source) {
        return source.replaceAll("\"value\": (\"\\w+\"|-?\\d+)", "\"value\": _");
    }

    @Test
    void tuningStaysInsideTheDeclaredValuesAndTheRule() {
        KernelFile parent = ContractParser.parse("p.cu", null, RULED);
        BuiltinAgent tuner = new BuiltinAgent(false);
        Set<Integer> counts = new HashSet<>();
        Set<String> children = new HashSet<>();
        for (long seed = 0; seed < 300; seed++) {
            Proposal p = tuner.propose(request(candidate("p", RULED), Optional.empty(), List.of(), seed));
            assertEquals("tune", p.operator());
            assertTrue(p.genome().isEmpty());
            KernelFile child = ContractParser.parse("c.cu", null, p.source());
            assertTrue(child.knobs().allowed(), child.knobs()::describe);
            assertEquals(withoutValues(RULED), withoutValues(p.source()), "only the current values change");
            String moves = child.knobs().movesFrom(parent.knobs());
            assertEquals(moves, p.summary());
            int moved = moves.split(", ").length;
            assertTrue(moved >= 1 && moved <= 3, moves);
            counts.add(moved);
            for (Knob k : child.knobs().knobs()) {
                Knob before = parent.knobs().get(k.name()).orElseThrow();
                if (k.integer()) {
                    assertTrue(Math.abs(k.index() - before.index()) <= 2, k.name() + " stepped far: " + moves);
                }
            }
            children.add(p.source());
        }
        assertEquals(Set.of(1, 2, 3), counts);
        assertTrue(children.size() >= 15, "varied children: " + children.size());
    }

    @Test
    void theSameRequestAndRandomStateGiveTheSameChild() {
        Candidate parent = candidate("p", RULED);
        Candidate mate = candidate("m", RULED.replace("\"value\": 256", "\"value\": 64")
                .replace("\"value\": \"A\"", "\"value\": \"C\""));
        for (boolean fresh : List.of(true, false)) {
            for (long seed = 0; seed < 30; seed++) {
                for (Optional<Candidate> m : List.of(Optional.<Candidate>empty(), Optional.of(mate))) {
                    assertEquals(new BuiltinAgent(fresh).propose(request(parent, m, List.of(), seed)),
                            new BuiltinAgent(fresh).propose(request(parent, m, List.of(), seed)));
                }
            }
        }
    }

    @Test
    void crossoverTakesEachSharedKnobFromOneParent() {
        KernelFile parent = ContractParser.parse("p.cu", null, RULED);
        String mateSource = KnobRewriter.rewrite(parent, Map.of("BLOCK", "64", "VEC", "8", "SPLIT", "1", "MODE", "C"));
        KernelFile mate = ContractParser.parse("m.cu", null, mateSource);
        BuiltinAgent tuner = new BuiltinAgent(false);
        int fromMate = 0;
        for (long seed = 0; seed < 100; seed++) {
            Proposal p = tuner.propose(request(candidate("p", RULED), Optional.of(candidate("g0001-i0-c1", mateSource)),
                    List.of(), seed));
            assertEquals("tune-crossover", p.operator());
            assertTrue(p.summary().startsWith("crossover with g0001-i0-c1: "), p.summary());
            KernelFile child = ContractParser.parse("c.cu", null, p.source());
            assertTrue(child.knobs().allowed());
            assertNotEquals(RULED, p.source());
            assertNotEquals(mateSource, p.source());
            long stepped = child.knobs().knobs().stream().filter(k -> !k.value().equals(parent.knobs().get(k.name())
                    .orElseThrow().value()) && !k.value().equals(mate.knobs().get(k.name()).orElseThrow().value()))
                    .count();
            assertTrue(stepped <= 1, "at most one knob stepped after the mix: " + p.summary());
            assertTrue(p.summary().contains(" from the mate"), p.summary());
            long fromTheMate = child.knobs().knobs().stream().filter(k -> !k.value().equals(parent.knobs()
                    .get(k.name()).orElseThrow().value()) && k.value().equals(mate.knobs().get(k.name()).orElseThrow()
                    .value())).count();
            if (fromTheMate > 0) {
                fromMate++;
            }
        }
        assertTrue(fromMate > 80, "crossovers take values from the mate: " + fromMate);
    }

    @Test
    void recentFailuresAreNotProposedAgain() {
        KernelFile parent = ContractParser.parse("p.cu", null,
                "/*@kevo {\"knobs\": {\"B\": {\"values\": [1, 2, 3], \"value\": 2}}, \"plans\": [{\"launches\": "
                        + "[{\"kernel\": \"k\", \"grid\": 1, \"block\": \"B\", \"args\": []}]}]} */\n");
        Candidate failed = candidate("f", KnobRewriter.rewrite(parent, Map.of("B", "1")));
        for (long seed = 0; seed < 40; seed++) {
            Proposal p = new BuiltinAgent(false).propose(request(candidate("p", parent.source()), Optional.empty(),
                    List.of(failed), seed));
            assertEquals("B 2->3", p.summary());
        }
        Candidate failedToo = candidate("f2", KnobRewriter.rewrite(parent, Map.of("B", "3")));
        AgentException e = assertThrows(AgentException.class, () -> new BuiltinAgent(false).propose(
                request(candidate("p", parent.source()), Optional.empty(), List.of(failed, failedToo), 1)));
        assertTrue(e.getMessage().contains("B=2"), e.getMessage());
    }

    @Test
    void withFreshGenomesOffAParentWithoutKnobsOrGenomeIsAnAgentFailure() {
        Candidate plain = AgentPopulation.seed("plain.cu");
        AgentException e = assertThrows(AgentException.class,
                () -> new BuiltinAgent(false).propose(request(plain, Optional.empty(), List.of(), 1)));
        assertTrue(e.getMessage().contains("fresh_genomes is off"), e.getMessage());
        assertEquals("fresh", new BuiltinAgent(true).propose(request(plain, Optional.empty(), List.of(), 1)).operator());
    }

    @Test
    void withFreshGenomesOnAKnobbedSeedIsSometimesTunedSometimesGivenAGenome() throws IOException {
        String seed = Files.readString(TestFiles.root().resolve("seeds/register_rows.cu"));
        Set<String> operators = new HashSet<>();
        for (long s = 0; s < 30; s++) {
            operators.add(new BuiltinAgent().propose(request(candidate("seed-register_rows", seed), Optional.empty(),
                    List.of(), s)).operator());
            assertEquals("tune", new BuiltinAgent(false).propose(request(candidate("seed-register_rows", seed),
                    Optional.empty(), List.of(), s)).operator());
        }
        assertEquals(Set.of("tune", "fresh"), operators);
    }

    /**
     * An operator the genome does not render (a loss-shaped operator of the tests, with no library section) has its
     * seeds' knobs tuned, never a fresh genome, which would be a softmax's kernels under its name; a seed without knobs
     * is an agent failure that says why.
     */
    @Test
    void anOperatorTheGenomeDoesNotRenderIsOnlyTuned() throws IOException {
        Task loss = new Task(new dev.kevo.task.op.RowLossOperator(), dev.kevo.data.Precision.FP32);
        TaskContext context = new TaskContext(null, "standard", List.of(), loss, "copy_baseline");
        String seed = Files.readString(TestFiles.root().resolve("seeds/cross_entropy/held_rows.cu"));
        for (long s = 0; s < 30; s++) {
            ProposalRequest request = ProposalRequest.builder(candidate("seed-held_rows", seed),
                    new SplittableRandom(s))
                    .context(context).build();
            assertEquals("tune", new BuiltinAgent(true).propose(request).operator());
        }
        String plain = Files.readString(TestFiles.root().resolve("evaluator/baselines/cross_entropy_two_pass.cu"));
        AgentException e = assertThrows(AgentException.class, () -> new BuiltinAgent(true).propose(
                ProposalRequest.builder(candidate("base", plain), new SplittableRandom(1)).context(context).build()));
        assertTrue(e.getMessage().endsWith("the built-in genome does not render row_loss kernels"), e.getMessage());
        assertTrue(KernelRenderer.serves(dev.kevo.task.op.Operators.CROSS_ENTROPY));
        assertTrue(KernelRenderer.serves(dev.kevo.task.op.Operators.LOG_SOFTMAX_BACKWARD));
        assertTrue(KernelRenderer.serves(dev.kevo.task.op.Operators.MASKED_SOFTMAX));
    }

    @Test
    void aGenomeParentIsStillMutatedAsBefore() {
        Genome g = DefaultGenomes.float32();
        Candidate parent = new Candidate("g", KernelRenderer.render(g), Optional.of(g.toJson()), null);
        Proposal p = new BuiltinAgent(false).propose(request(parent, Optional.of(candidate("m", RULED)), List.of(), 3));
        assertTrue(Set.of("mutate", "crossover").contains(p.operator()), p.operator());
        assertTrue(p.genome().isPresent());
    }
}
