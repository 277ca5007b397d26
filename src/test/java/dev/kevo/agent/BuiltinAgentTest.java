package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class BuiltinAgentTest {

    private final BuiltinAgent agent = new BuiltinAgent();

    private static Candidate withGenome(String id, Genome g) {
        return new Candidate(id, KernelRenderer.render(g), Optional.of(g.toJson()), null);
    }

    private static ProposalRequest request(Candidate parent, Optional<Candidate> mate, List<Candidate> failures,
                                           long seed) {
        return ProposalRequest.builder(parent, new SplittableRandom(seed)).mate(mate).recentFailures(failures).build();
    }

    private static Genome genome(Proposal p) {
        return Genome.fromJson(p.genome().orElseThrow(), DefaultGenomes.float32());
    }

    @Test
    void nameIsBuiltin() {
        assertEquals("builtin", agent.name());
    }

    @Test
    void sameRequestAndRandomStateGiveTheSameProposal() {
        Candidate seedParent = AgentPopulation.seed("online.cu");
        Candidate parent = withGenome("p", DefaultGenomes.float32());
        Candidate mate = withGenome("m", DefaultGenomes.named().get("wide"));
        for (long seed = 0; seed < 20; seed++) {
            for (Optional<Candidate> m : List.of(Optional.<Candidate>empty(), Optional.of(mate))) {
                for (Candidate p : List.of(seedParent, parent)) {
                    Proposal a = agent.propose(request(p, m, List.of(), seed));
                    Proposal b = agent.propose(request(p, m, List.of(), seed));
                    assertEquals(a, b, "seed " + seed);
                }
            }
        }
    }

    @Test
    void aSeedWithoutGenomeGetsAFreshOne() {
        Set<String> summaries = new HashSet<>();
        for (long seed = 0; seed < 40; seed++) {
            Proposal p = agent.propose(request(AgentPopulation.seed("register_rows.cu"), Optional.empty(), List.of(),
                    seed));
            assertEquals("fresh", p.operator());
            assertEquals(KernelRenderer.render(genome(p)), p.source());
            ContractParser.parse("fresh.cu", null, p.source());
            assertTrue(p.summary().startsWith("fresh: "), p.summary());
            assertTrue(p.summary().endsWith("(register_rows.cu has no builtin genome)"), p.summary());
            summaries.add(p.summary().replaceAll(" \\(.*", ""));
        }
        assertTrue(summaries.contains("fresh: named genome 'default'"), summaries::toString);
        assertTrue(summaries.contains("fresh: random genome"), summaries::toString);
        assertTrue(summaries.size() >= 4, summaries::toString);
    }

    @Test
    void anUnreadableGenomeCountsAsNone() {
        ObjectNode bad = new ObjectMapper().createObjectNode().put("kernel", "mine");
        Candidate parent = new Candidate("llm-7", "", Optional.of(bad), null);
        assertEquals("fresh", agent.propose(request(parent, Optional.empty(), List.of(), 3)).operator());
    }

    @Test
    void mutationChangesAFewGenesAndSaysWhich() {
        Genome parent = DefaultGenomes.float32();
        for (long seed = 0; seed < 100; seed++) {
            Proposal p = agent.propose(request(withGenome("p", parent), Optional.empty(), List.of(), seed));
            if (!p.operator().equals("mutate")) {
                continue;  // no inspirations here, so this never happens; keeps the test honest if that changes
            }
            Genome child = genome(p);
            assertNotEquals(parent, child);
            assertEquals(GenomeSpace.changes(parent, child), p.summary());
            assertTrue(p.summary().matches("(short|block|split|cluster|loop): .+->.+"), p.summary());
        }
    }

    @Test
    void crossoverTakesRegimesFromTheMate() {
        Genome a = DefaultGenomes.float32();
        Genome b = DefaultGenomes.named().get("wide");
        int fromMate = 0;
        for (long seed = 0; seed < 50; seed++) {
            Proposal p = agent.propose(request(withGenome("p", a), Optional.of(withGenome("m-12", b)), List.of(), seed));
            assertEquals("crossover", p.operator());
            assertTrue(p.summary().startsWith("crossover with m-12: "), p.summary());
            Genome child = genome(p);
            assertNotEquals(a, child);
            assertNotEquals(b, child);
            if (child.splitRows().equals(b.splitRows())) {
                fromMate++;
            }
        }
        assertTrue(fromMate > 5 && fromMate < 45, "split came from the mate " + fromMate + " times in 50");
    }

    @Test
    void recentFailuresAreNotProposedAgain() {
        List<Candidate> failures = new ArrayList<>();
        DefaultGenomes.named().forEach((name, g) -> failures.add(withGenome(name, g)));
        for (long seed = 0; seed < 20; seed++) {
            Proposal p = agent.propose(request(AgentPopulation.seed("naive.cu"), Optional.empty(), failures, seed));
            assertTrue(p.summary().startsWith("fresh: random genome"), p.summary());
        }
    }

    @Test
    void aFreshGenomeIsNotOneAnotherIslandAlreadyHolds() {
        Candidate best = withGenome("island-2-best", DefaultGenomes.float32());
        for (long seed = 0; seed < 20; seed++) {
            Proposal p = agent.propose(ProposalRequest.builder(AgentPopulation.seed("online.cu"), new SplittableRandom(seed))
                    .inspirations(List.of(best)).build());
            assertNotEquals(DefaultGenomes.float32(), genome(p));
        }
    }

    @Test
    void namedGenomesAreNormalizedAndDistinct() {
        var named = DefaultGenomes.named();
        assertEquals("default", named.keySet().iterator().next());
        assertEquals(DefaultGenomes.float32(), named.get("default"));
        named.values().forEach(g -> assertEquals(g, g.normalized()));
        assertEquals(named.size(), new HashSet<>(named.values()).size());
        for (Precision dtype : Precision.SUPPORTED) {
            var inDtype = DefaultGenomes.named(dtype);
            assertEquals(DefaultGenomes.of(dtype), inDtype.get("default"), dtype::toString);
            inDtype.values().forEach(g -> assertEquals(g, g.normalized(dtype)));
            assertEquals(inDtype.size(), new HashSet<>(inDtype.values()).size(), dtype::toString);
        }
    }

    /**
     * The campaign's dtype reaches every kind of child: fresh, mutated and crossed genomes are normalized and rendered
     * for it, and the file declares it.
     */
    @Test
    void childrenAreRenderedInTheCampaignsDtype() {
        for (Precision dtype : List.of(Precision.BF16, Precision.FP16, Precision.BF16_FP32)) {
            Genome parent = DefaultGenomes.named(dtype).get("default");
            Candidate mate = withGenome("m", DefaultGenomes.named(dtype).get("wide"), dtype);
            Set<String> operators = new HashSet<>();
            for (long seed = 0; seed < 30; seed++) {
                for (Candidate p : List.of(AgentPopulation.seed("online.cu"), withGenome("p", parent, dtype))) {
                    for (Optional<Candidate> m : List.of(Optional.<Candidate>empty(), Optional.of(mate))) {
                        Proposal child = agent.propose(ProposalRequest.builder(p, new SplittableRandom(seed))
                                .context(AgentPopulation.context(dtype)).mate(m).build());
                        operators.add(child.operator());
                        Genome g = genome(child);
                        assertEquals(g.normalized(dtype), g, dtype + " " + child.summary());
                        assertEquals(KernelRenderer.render(g, dtype), child.source(), dtype + " " + child.summary());
                        assertEquals(List.of(dtype), ContractParser.parse("child.cu", null, child.source()).dtypes());
                    }
                }
            }
            assertEquals(Set.of("fresh", "mutate", "crossover"), operators, dtype::toString);
        }
    }

    /**
     * A 16-bit loss starts from its own genome: LM-head rows held in clusters of 256-thread blocks of 32768 columns
     * (five blocks for 151936 columns, eight for 262144), not the forward default's 512-thread blocks, and rows of
     * up to 4096 columns a 128-thread block each. Fails if the loss takes the dtype's forward default again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cross_entropy:bf16", "cross_entropy:fp16",
            "cross_entropy_sum:bf16"})
    void theSixteenBitLossHoldsLmHeadRowsInClustersOfSmallBlocks(String opAndDtype) {
        String[] parts = opAndDtype.split(":");
        Task task = new Task(Operators.byId(parts[0]), Precision.parse(parts[1]));
        KernelFile file = defaultFile(task);
        for (int[] shape : new int[][] {{1024, 151936, 5, 256}, {512, 262144, 8, 256}, {65536, 4096, 1, 128}}) {
            ResolvedPlan.Launch row = PlanResolver.resolve(file, new Shape(shape[0], shape[1]), 132).launches()
                    .stream().filter(l -> !l.kernel().equals("ce_count") && !l.kernel().equals("ce_finish"))
                    .findFirst().orElseThrow();
            String where = shape[0] + "x" + shape[1] + ": " + row.kernel();
            assertEquals(shape[3], row.block(), where);
            assertEquals(shape[2], row.cluster(), where);
        }
    }

    /**
     * Every default splits rows of 8K columns or more over many blocks only while they are no more than the SMs: past
     * one row an SM, a row a block or cluster fills the GPU, and splitting 256 rows of 16384 to 131072 columns ran
     * slower in every operator that splits (bench/results/training-family-h200/probes/rows-pct/). Fails if a dtype's
     * default takes more rows, as the 16-bit one took twice the SMs.
     */
    @ParameterizedTest
    @MethodSource("forwardTasks")
    void defaultsSplitRowsOnlyUpToOneAnSm(Task task) {
        KernelFile file = defaultFile(task);
        List<MaskKind> masks = task.op().equals(Operators.MASKED_SOFTMAX) ? List.of(MaskKind.values())
                : List.of(MaskKind.NONE);
        for (MaskKind mask : masks) {
            for (long[] shape : new long[][] {{132, 16384, 1}, {133, 16384, 0}, {256, 16384, 0}, {256, 131072, 0},
                    {32, 131072, 1}}) {
                String kernel = firstKernel(file, shape[0], shape[1], mask);
                boolean split = kernel.startsWith("softmax_fused") || kernel.startsWith("softmax_split");
                assertEquals(shape[2] == 1, split,
                        task + " mask " + mask + " " + shape[0] + "x" + shape[1] + ": " + kernel);
            }
        }
    }

    /**
     * Every forward default holds the LM-head rows of many on chip, each read once, up to Gemma 3's 262144 columns:
     * a cluster plan takes them, not the loop that reads a row twice. Fails if a default's cluster blocks shrink
     * without more of them a cluster (the 16-bit default's 256-thread blocks hold 196608 columns in clusters of 8).
     */
    @ParameterizedTest
    @MethodSource("forwardTasks")
    void defaultsHoldLmHeadRowsInClusters(Task task) {
        KernelFile file = defaultFile(task);
        for (long[] shape : new long[][] {{4096, 50257}, {2048, 128256}, {1024, 151936}, {512, 262144}}) {
            String kernel = firstKernel(file, shape[0], shape[1], MaskKind.NONE);
            assertTrue(kernel.startsWith("softmax_cluster"), task + " " + shape[0] + "x" + shape[1] + ": " + kernel);
        }
    }

    /** The forward operators whose files split rows and hold them in clusters, in every dtype. */
    static Stream<Task> forwardTasks() {
        return Stream.of(Operators.SOFTMAX, Operators.LOG_SOFTMAX, Operators.MASKED_SOFTMAX)
                .flatMap(op -> Precision.SUPPORTED.stream().map(dtype -> new Task(op, dtype)));
    }

    private static KernelFile defaultFile(Task task) {
        return ContractParser.parse("default.cu", null, KernelRenderer.render(DefaultGenomes.of(task), task));
    }

    /**
     * The first kernel the plan that {@code file} takes for rows x cols on 132 SMs launches; where the file is
     * masked_softmax's, the rows are decode rows (one query for each of {@code rows} heads) under {@code mask}.
     */
    private static String firstKernel(KernelFile file, long rows, long cols, MaskKind mask) {
        return PlanResolver.resolve(file, Shape.attention(1, rows, 1, cols, mask), 132).launches().getFirst().kernel();
    }

    private static Candidate withGenome(String id, Genome g, Precision dtype) {
        return new Candidate(id, KernelRenderer.render(g, dtype), Optional.of(g.toJson()), null);
    }
}
