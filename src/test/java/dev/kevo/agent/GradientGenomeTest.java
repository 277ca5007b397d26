package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.Expr;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ParameterTypes;
import dev.kevo.task.SourcePolicy;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The genome rendered for the backward operators (GradientPlans, genome-backward.cu): files that say their operator,
 * take y, dy and dx, hold in registers no longer a row than each plan admits, and compile. Whether their values are
 * right takes a GPU (BackwardGpuTest judges the default genome).
 */
class GradientGenomeTest {
    private static final List<Operator> OPS = List.of(Operators.SOFTMAX_BACKWARD, Operators.LOG_SOFTMAX_BACKWARD);
    private static final Pattern CONDITION = Pattern.compile("cols <= (\\d+)");
    private static final Pattern TEMPLATE = Pattern.compile("grad_register_rows<(ShortCfg|BlockCfg), (\\d+), (\\d+), "
            + "(\\d+)>");
    private static final Pattern CLUSTER = Pattern.compile("grad_cluster_rows<ClusterCfg, (\\d+), (\\d+), (\\d+)>");

    static Stream<Arguments> tasks() {
        return OPS.stream().flatMap(op -> Precision.SUPPORTED.stream().map(d -> Arguments.of(op.id(), d.id())));
    }

    private static Task task(String op, String dtype) {
        return new Task(Operators.byId(op), Precision.parse(dtype));
    }

    /** The default genomes (float32's and the operator's) and every 50th of the dtype's population. */
    private static List<Genome> genomes(Task task) {
        Precision dtype = task.dtype();
        List<Genome> genomes = new ArrayList<>(List.of(DefaultGenomes.float32(), DefaultGenomes.of(task)));
        List<Genome> population = AgentPopulation.genomes(dtype);
        for (int i = 0; i < population.size(); i += 50) {
            genomes.add(population.get(i));
        }
        return genomes;
    }

    /**
     * Each register plan's kernel holds G * N vectors of V elements of a row (each of y and dy), at least the columns
     * its condition admits, and admits more than the plan before it; the last plan takes every row, with the loop.
     */
    @ParameterizedTest
    @MethodSource("tasks")
    void everyRegisterPlanHoldsTheRowsItsConditionAdmits(String op, String dtype) {
        Task task = task(op, dtype);
        for (Genome genome : genomes(task)) {
            Genome g = genome.normalized(task);
            List<KernelRenderer.Plan> plans = KernelRenderer.plans(genome, task);
            long last = 0;
            for (KernelRenderer.Plan plan : plans.subList(0, plans.size() - 1)) {
                Matcher when = CONDITION.matcher(plan.when());
                assertTrue(when.matches(), plan.when());
                long cols = Long.parseLong(when.group(1));
                assertTrue(cols > last, "plans admit longer rows in turn: " + plan.when() + " after " + last);
                last = cols;
                KernelRenderer.Kernel kernel = plan.launches().getFirst().kernel();
                Matcher cluster = CLUSTER.matcher(kernel.call());
                if (cluster.find()) {
                    assertClusterHolds(plan, cluster, cols, task.dtype(), g.clusterRows());
                    continue;
                }
                Matcher t = TEMPLATE.matcher(kernel.call());
                assertTrue(t.find(), kernel.call());
                int vec = t.group(1).equals("ShortCfg") ? g.shortRows().vec() : g.blockRows().vec();
                long holds = Long.parseLong(t.group(3)) * Long.parseLong(t.group(4)) * Genome.vecElems(vec,
                        task.dtype());
                assertTrue(holds >= cols, kernel.name() + " holds " + holds + " of a row, its plan admits " + cols);
                assertEquals(Integer.parseInt(t.group(2)), kernel.threads(), kernel.name());
            }
            KernelRenderer.Plan loop = plans.getLast();
            assertEquals("true", loop.when());
            assertTrue(loop.launches().getFirst().kernel().call().startsWith("grad_loop_rows<"), loop.toString());
            for (KernelRenderer.Plan plan : plans) {
                List<String> args = plan.launches().getFirst().args();
                assertEquals(plan.launches().getFirst().kernel().call().startsWith("grad_cluster_rows")
                        ? List.of("y", "dy", "dx", "cols") : List.of("y", "dy", "dx", "rows", "cols"), args);
            }
        }
    }

    /**
     * A cluster plan's blocks each hold threads * (N + S) vectors of y (and of dy), so many of them as the launch's
     * cluster holds at least the columns its condition admits, within the most blocks a cluster may have; its dynamic
     * shared memory is S vectors each of y and dy a thread, within a block's limit.
     */
    private static void assertClusterHolds(KernelRenderer.Plan plan, Matcher template, long cols, Precision dtype,
                                           Genome.ClusterRows c) {
        KernelRenderer.Launch launch = plan.launches().getFirst();
        int threads = Integer.parseInt(template.group(1));
        int n = Integer.parseInt(template.group(2));
        int s = Integer.parseInt(template.group(3));
        long block = (long) threads * (n + s) * Genome.vecElems(4, dtype);
        assertEquals("rows * cdiv(cols, " + block + ")", launch.grid(), "a block per share of the row");
        assertTrue(block * c.maxCluster() >= cols, plan.when() + ": " + c.maxCluster() + " blocks of " + block);
        assertTrue(c.maxCluster() <= 16, "a cluster an H100 can hold (past 8, non-portable)");
        assertEquals(s > 0 ? Long.toString(2L * threads * s * 16) : null, launch.smem());
        assertTrue(launch.smem() == null || Long.parseLong(launch.smem()) <= 227 * 1024, launch.smem());
        assertEquals(List.of("y", "dy", "dx", "cols"), launch.args());
    }

    /**
     * The operators' default genome holds every LM-head row of the llm suite (up to 262144 columns) on chip in a
     * cluster, where y and dy would otherwise be read twice by the loop; softmax's default is the dtype's own.
     */
    @ParameterizedTest
    @MethodSource("tasks")
    void theDefaultGenomeHoldsLmHeadRowsOnChip(String op, String dtype) {
        Task task = task(op, dtype);
        List<KernelRenderer.Plan> plans = KernelRenderer.plans(DefaultGenomes.of(task), task);
        KernelRenderer.Plan widest = plans.stream().filter(p -> {
            Matcher when = CONDITION.matcher(p.when());
            return when.matches() && Long.parseLong(when.group(1)) >= 262144;
        }).findFirst().orElseThrow(() -> new AssertionError("no plan holds 262144 columns: " + plans));
        assertTrue(CLUSTER.matcher(widest.launches().getFirst().kernel().call()).find(), widest.when());
        Task softmax = new Task(Operators.SOFTMAX, task.dtype());
        assertEquals(DefaultGenomes.of(task.dtype()), DefaultGenomes.of(softmax));
    }

    /**
     * With a 16-bit x, log_softmax_backward's default cluster blocks hold enough that the longest LM-head rows (262144
     * columns) take a portable cluster of 8 blocks and 50257 columns two: clusters of 11 and 3 left SM slots idle.
     */
    @ParameterizedTest
    @ValueSource(strings = {"bf16", "fp16"})
    void theSixteenBitDefaultTakesPortableClustersForLmHeadRows(String dtype) {
        Task task = task("log_softmax_backward", dtype);
        List<KernelRenderer.Plan> plans = KernelRenderer.plans(DefaultGenomes.of(task), task);
        for (long[] colsAndBlocks : new long[][] {{262144, 8}, {50257, 2}}) {
            Expr.Env env = new Expr.Env(4096, colsAndBlocks[0], 132, Map.of());
            KernelRenderer.Launch launch = plans.stream().filter(p -> Expr.parse(p.when()).evalBoolean(env))
                    .findFirst().orElseThrow().launches().getFirst();
            assertTrue(CLUSTER.matcher(launch.kernel().call()).find(), launch.kernel().name());
            assertEquals(colsAndBlocks[1], Expr.parse(launch.cluster()).evalLong(env), colsAndBlocks[0] + " columns");
        }
    }

    /** A file says its operator, holds its own Grad and no other's, and reads as any kernel file does. */
    @ParameterizedTest
    @MethodSource("tasks")
    void theFileSaysItsOperatorAndHoldsItsOwnGradient(String op, String dtype) {
        Task task = task(op, dtype);
        String source = KernelRenderer.render(DefaultGenomes.float32(), task);
        KernelFile file = ContractParser.parse("g.cu", null, source);
        assertEquals(task.op(), file.op());
        assertEquals(List.of(task.dtype()), file.dtypes());
        assertEquals(Optional.empty(), SourcePolicy.violation(file.source()));
        assertEquals(Optional.empty(), ParameterTypes.violation(file, task.dtype()));
        assertEquals(1, source.split("struct Grad \\{", -1).length - 1, "one gradient");
        assertEquals(task.op().equals(Operators.LOG_SOFTMAX_BACKWARD), source.contains("exp_from(y, 0.0f)"),
                "exp(y) carries log_softmax's dot product, y softmax's");
        assertFalse(source.contains("//@") || source.contains("struct Epilogue") || source.contains("struct Prologue"),
                "softmax's library, no section markers");
    }

    /** A backward campaign's agent renders that operator's files, fresh and bred alike. */
    @Test
    void theAgentRendersTheCampaignsBackwardOperator() {
        BuiltinAgent agent = new BuiltinAgent();
        Task task = new Task(Operators.LOG_SOFTMAX_BACKWARD, Precision.BF16);
        TaskContext context = new TaskContext(null, "quick", List.of(), task, task.op().ownBaseline());
        Candidate parent = AgentPopulation.seed("block_dot.cu");  // no knobs: its child is a fresh genome
        java.util.SplittableRandom random = new java.util.SplittableRandom(43);
        for (int i = 0; i < 10; i++) {
            Proposal p = agent.propose(ProposalRequest.builder(parent, random.split()).context(context).build());
            Genome genome = Genome.fromJson(p.genome().orElseThrow(), DefaultGenomes.float32());
            assertEquals(KernelRenderer.render(genome, task), p.source(), "the proposal is the genome's file");
            assertEquals(task.op(), ContractParser.parse("child-" + i + ".cu", null, p.source()).op());
            parent = new Candidate("child-" + i, p.source(), p.genome(), null);
        }
    }

    /**
     * The float32 default genome and each operator's own default, in every dtype, through NVRTC: every regime's kernels,
     * the 16-bit ones the same templates with other element types. CI's second pass.
     */
    @Test
    @NeedsNvrtc
    @Exhaustive
    void theDefaultGenomeCompilesInEveryDtype() throws Exception {
        compile(Precision.SUPPORTED, task -> List.of(DefaultGenomes.float32(), DefaultGenomes.of(task)));
    }

    /** Every 50th genome of float32's population as well, in CI's second pass (each distinct kernel once). */
    @Test
    @NeedsNvrtc
    @Exhaustive
    void aSampleOfTheFloat32PopulationCompiles() throws Exception {
        compile(List.of(Precision.FP32), GradientGenomeTest::genomes);
    }

    private static void compile(List<Precision> dtypes, java.util.function.Function<Task, List<Genome>> genomes)
            throws Exception {
        for (Operator op : OPS) {
            KernelBatch batch = new KernelBatch(KernelRenderer.library(op));
            for (Precision dtype : dtypes) {
                Task task = new Task(op, dtype);
                List<Genome> list = genomes.apply(task);
                for (int i = 0; i < list.size(); i++) {
                    String name = op.id() + "-g" + i + "-" + dtype + ".cu";
                    batch.add(name, KernelRenderer.render(list.get(i), task), list.get(i).normalized(task), task);
                }
            }
            batch.compileAll(Nvrtc.load(Optional.empty()), "sm_90");
        }
    }
}
