package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.Expr;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ParameterTypes;
import dev.kevo.task.SourcePolicy;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The genome rendered for the operators beside softmax: log_softmax (softmax's kernels with its epilogue) and
 * masked_softmax (softmax's kernels reading x through its prologue, with the attention arguments), each a file that
 * says its operator, and the agent rendering it for a campaign of that operator. Whether their values are right takes
 * a GPU (LogSoftmaxGpuTest and MaskedSoftmaxGpuTest judge the default genome); here every sampled file must compile,
 * as kevo check compiles it.
 */
@NeedsNvrtc
class OperatorGenomeTest {

    private static Task task(Precision dtype) {
        return new Task(Operators.LOG_SOFTMAX, dtype);
    }

    private static KernelFile parse(String name, Genome genome, Precision dtype) {
        return parse(name, genome, task(dtype));
    }

    private static KernelFile parse(String name, Genome genome, Task task) {
        Precision dtype = task.dtype();
        KernelFile file = ContractParser.parse(name, null, KernelRenderer.render(genome, task));
        assertEquals(task.op(), file.op(), name + " says its operator");
        assertEquals(List.of(dtype), file.dtypes(), name);
        assertEquals(Optional.empty(), SourcePolicy.violation(file.source()), name);
        assertEquals(Optional.empty(), ParameterTypes.violation(file, dtype), name);
        return file;
    }

    @Test
    void theHeaderSaysLogSoftmaxAndTheLibraryHoldsOnlyItsEpilogue() {
        String log = KernelRenderer.render(DefaultGenomes.float32(), task(Precision.FP32));
        assertTrue(log.startsWith("/*@kevo\n{\n  \"op\": \"log_softmax\",\n"), log.substring(0, 60));
        assertTrue(log.contains("struct Epilogue"), "log_softmax's epilogue");
        // The softmax file of the genome as log_softmax normalizes it (its cluster regime's register share).
        String softmax = KernelRenderer.render(DefaultGenomes.float32().normalized(task(Precision.FP32)),
                Precision.FP32);
        assertFalse(softmax.contains("Epilogue") || softmax.contains("\"op\""), "softmax's file is as it was");
        for (String file : List.of(log, softmax)) {
            assertFalse(file.contains("//@"), "section markers never reach a file");
        }
        // The plans are the normalized genome's, whatever the operator: only the library's epilogue lines differ.
        assertEquals(softmax.substring(softmax.indexOf("\"plans\"")), log.substring(log.indexOf("\"plans\""))
                .replace(KernelRenderer.library(Operators.LOG_SOFTMAX), KernelRenderer.LIBRARY));
    }

    @Test
    void aMisspeltSectionIsAnError() {
        try {
            KernelRenderer.sections("a\n//@ logsoftmax\nb\n//@ end\n", "softmax");
        } catch (IllegalArgumentException expected) {
            return;
        }
        throw new AssertionError("an unknown operator's section was accepted");
    }

    /** A log_softmax campaign's agent renders log_softmax files, fresh and bred alike. */
    @Test
    void theAgentRendersTheCampaignsOperator() {
        BuiltinAgent agent = new BuiltinAgent();
        TaskContext context = new TaskContext(null, "standard", List.of(), task(Precision.BF16), "log_softmax_two_pass");
        Candidate parent = AgentPopulation.seed("online.cu");
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 20; i++) {
            Proposal p = agent.propose(ProposalRequest.builder(parent, random.split()).context(context).build());
            KernelFile file = parse("child-" + i + ".cu", Genome.fromJson(p.genome().orElseThrow(),
                    DefaultGenomes.float32()), Precision.BF16);
            assertEquals(file.source(), p.source(), "the proposal is the genome's log_softmax file");
            parent = new Candidate("child-" + i, p.source(), p.genome(), null);
        }
    }

    /**
     * log_softmax keeps x for its epilogue while a row's exponentials are summed: its cluster kernels get half the
     * register vectors softmax's may hold, the rest in shared memory, so a cluster holds as long a row. Softmax's
     * normalization is untouched by it.
     */
    @Test
    void logSoftmaxClusterRowsHoldHalfTheRegisterVectorsAndTheSameRow() {
        Genome wide = DefaultGenomes.float32();  // 8 register and 8 shared vectors in its cluster regime
        for (Precision dtype : Precision.SUPPORTED) {
            Genome.ClusterRows soft = wide.normalized(Task.softmax(dtype)).clusterRows();
            Genome.ClusterRows log = wide.normalized(task(dtype)).clusterRows();
            assertEquals(wide.normalized(dtype).clusterRows(), soft, dtype + ": softmax's as before");
            assertEquals(Math.max(1, soft.regVecs() / 2), log.regVecs(), dtype + ": half the register vectors");
            assertEquals(soft.capacity(dtype), log.capacity(dtype),
                    dtype + ": the row a cluster holds");
            assertEquals(log, wide.normalized(task(dtype)).normalized(task(dtype)).clusterRows(), "idempotent");
            assertEquals(log, wide.normalized(task(dtype)).normalized(dtype).clusterRows(),
                    "a stored log_softmax genome reads back as it was");
        }
    }

    /**
     * cross_entropy's default genome in a 32-bit and a 16-bit x every run; the rest, and cross_entropy_sum's (its files
     * differ in the reduction's lines only, theSumsFileCountsNoRowsAndDividesByNothing), in CI's second pass.
     */
    @Test
    void crossEntropysDefaultGenomeCompilesInFloat32AndBf16() throws Exception {
        compile(Operators.CROSS_ENTROPY, List.of(Precision.FP32, Precision.BF16), List.of(), false);
    }

    /**
     * cross_entropy_sum's file: no count of the live rows (each plan is the row kernel, then the loss's sum), dx not
     * divided by n, and the loss not divided either; the mean's file has each.
     */
    @Test
    void theSumsFileCountsNoRowsAndDividesByNothing() {
        KernelFile sum = parse("sum.cu", DefaultGenomes.float32(), new Task(Operators.CROSS_ENTROPY_SUM,
                Precision.FP32));
        KernelFile mean = parse("mean.cu", DefaultGenomes.float32(), new Task(Operators.CROSS_ENTROPY,
                Precision.FP32));
        assertEquals(mean.plans().size(), sum.plans().size());
        for (int i = 0; i < sum.plans().size(); i++) {
            List<String> kernels = sum.plans().get(i).launches().stream().map(l -> l.kernel()).toList();
            assertEquals("ce_finish", kernels.getLast(), "plan " + i);
            assertFalse(kernels.contains("ce_count"), "plan " + i + ": " + kernels);
            assertEquals(mean.plans().get(i).launches().subList(1, 3).stream().map(l -> l.kernel()).toList(),
                    kernels, "plan " + i + ": the mean's, less its count");
        }
        assertTrue(sum.source().contains("return block().g;") && !sum.source().contains("l.g / (float)"));
        assertTrue(mean.source().contains("l.g / (float)") && !mean.source().contains("return block().g;"));
        assertTrue(sum.source().contains("loss[0] = part[0];") && !mean.source().contains("loss[0] = part[0];"));
    }

    /**
     * cross_entropy's file: every plan counts the live rows, runs one of softmax's row kernels with the loss's
     * arguments, and reduces the loss, in that order; softmax's split and fused plans (a row over many blocks) are gone,
     * their code too, and their rows taken by the loop; rows too long for a loop thread's sum go to a loop of 1024
     * threads. Softmax's other plans route shapes as softmax's do.
     */
    @Test
    void crossEntropyPlansWrapSoftmaxsRowKernelsBetweenTheCountAndTheLoss() {
        Task loss = new Task(Operators.CROSS_ENTROPY, Precision.FP32);
        KernelFile file = parse("ce.cu", DefaultGenomes.float32(), loss);
        String source = file.source();
        assertTrue(source.contains("struct Loss") && !source.contains("split_fused") && !source.contains("Prologue"),
                "the loss's library: no split regime, no attention prologue");
        Genome g = DefaultGenomes.float32().normalized(loss);
        assertEquals(DefaultGenomes.float32().normalized(new Task(Operators.SOFTMAX, Precision.FP32)), g,
                "the loss's genome is softmax's: its unread rows need neither reduce forced");
        List<KernelRenderer.Plan> softmax = KernelRenderer.plans(g, Precision.FP32).stream()
                .filter(p -> !p.launches().getFirst().kernel().name().matches("softmax_(split|fused).*")).toList();
        assertEquals(softmax, KernelRenderer.rowPlans(g, Precision.FP32), "softmax's plans less the split rows'");
        assertTrue(softmax.size() < KernelRenderer.plans(g, Precision.FP32).size(), "the default genome splits rows");
        int loopThreads = g.loopRows().pass().threads();
        assertTrue(loopThreads < 1024, "the default genome's loop is narrower than the wide loop");
        assertEquals(softmax.size() + 1, file.plans().size(), "softmax's row plans and the wide loop");
        for (int i = 0; i < file.plans().size(); i++) {
            List<String> kernels = file.plans().get(i).launches().stream().map(l -> l.kernel()).toList();
            assertEquals(3, kernels.size(), "plan " + i);
            assertEquals(List.of("ce_count", "ce_finish"), List.of(kernels.get(0), kernels.get(2)), "plan " + i);
            assertEquals(List.of("x", "dx", "labels", "ws", "g", "rows", "cols"), file.plans().get(i).launches()
                    .get(1).args().stream().map(Object::toString).toList(), "plan " + i);
            if (i < softmax.size() - 1) {
                assertEquals(softmax.get(i).when(), file.plans().get(i).when().text(), "plan " + i);
                assertEquals(softmax.get(i).launches().getFirst().kernel().name().replace("softmax_", "ce_"),
                        kernels.get(1), "plan " + i);
            }
        }
        int last = file.plans().size() - 1;
        assertEquals("cols <= " + (long) loopThreads * Genome.MAX_TERMS_PER_THREAD,
                file.plans().get(last - 1).when().text());
        assertEquals(List.of("ce_loop", "ce_loop_wide"), List.of(file.plans().get(last - 1).launches().get(1).kernel(),
                file.plans().get(last).launches().get(1).kernel()));
        assertEquals("true", file.plans().get(last).when().text());
        // Its threads sum past MAX_TERMS_PER_THREAD terms on the longest rows: a tile at a time, not one by one.
        for (Precision dtype : Precision.SUPPORTED) {
            Genome.Streaming wide = LossPlans.widePass(DefaultGenomes.float32().normalized(new Task(
                    Operators.CROSS_ENTROPY, dtype)), dtype);
            assertFalse(wide.online(), dtype.id());
            assertTrue(wide.tile() * Genome.vecElems(wide.vec(), dtype) >= 8,
                    dtype.id() + ": a tile's exponentials summed before the running sum takes them: " + wide);
        }
    }

    /** A cross_entropy campaign's agent renders cross_entropy files from a seed without a genome, and breeds them. */
    @Test
    void aCrossEntropyCampaignsAgentRendersLossFiles() {
        Task loss = new Task(Operators.CROSS_ENTROPY, Precision.BF16);
        TaskContext context = new TaskContext(null, "llm", List.of(), loss, "cross_entropy_two_pass");
        Candidate parent = AgentPopulation.seed("online.cu");
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 12; i++) {
            Proposal p = new BuiltinAgent().propose(ProposalRequest.builder(parent, random.split()).context(context)
                    .build());
            KernelFile file = parse("ce-child-" + i + ".cu", Genome.fromJson(p.genome().orElseThrow(),
                    DefaultGenomes.float32()), loss);
            assertEquals(file.source(), p.source(), "the proposal is the genome's cross_entropy file");
            parent = new Candidate("ce-child-" + i, p.source(), p.genome(), null);
        }
    }

    /**
     * The default and named genomes and every 25th genome of each dtype's population, rendered for each operator with
     * a prologue or an epilogue, through NVRTC (each distinct kernel once, as the softmax population is): every
     * regime's kernels in every dtype (cross_entropy_sum's in float32 only). CI's second pass.
     */
    @ParameterizedTest
    @ValueSource(strings = {"log_softmax", "masked_softmax", "cross_entropy"})
    @Exhaustive
    void theDefaultNamedAndSampledGenomesCompileInEveryDtype(String op) throws Exception {
        compile(Operators.byId(op), List.of(), Precision.SUPPORTED, true);
    }

    @Test
    @Exhaustive
    void crossEntropySumsDefaultNamedAndSampledGenomesCompileInFloat32() throws Exception {
        compile(Operators.CROSS_ENTROPY_SUM, List.of(), List.of(Precision.FP32), true);
    }

    /**
     * masked_softmax's file: its kernels take the attention arguments after softmax's, in the order its header lists
     * them, and set them for the library before anything else; the plans route shapes as softmax's do, each first for
     * mask kind 0 alone, to a kernel instantiated for it.
     */
    @Test
    void maskedSoftmaxKernelsTakeTheAttentionArgumentsAndRouteShapesAsSoftmaxDoes() {
        Task masked = new Task(Operators.MASKED_SOFTMAX, Precision.BF16);
        KernelFile file = parse("masked.cu", DefaultGenomes.float32(), masked);
        assertTrue(file.source().contains("struct Prologue") && !file.source().contains("struct Epilogue"),
                "masked_softmax's prologue, not log_softmax's epilogue");
        Genome g = DefaultGenomes.float32().normalized(masked);
        List<KernelRenderer.Plan> softmax = KernelRenderer.plans(g, Precision.BF16);
        List<KernelRenderer.MaskInstance> instances = List.of(KernelRenderer.MaskInstance.values());
        assertEquals(List.of(MaskKind.values()), instances.stream().flatMap(m -> m.kinds().stream()).sorted().toList(),
                "every mask kind has its kernels, once");
        int n = instances.size();
        assertEquals(n * softmax.size(), file.plans().size(), "a plan for each kind's kernels and each of softmax's");
        for (int i = 0; i < softmax.size(); i++) {
            for (int m = 0; m < n; m++) {
                KernelFile.Plan plan = file.plans().get(n * i + m);
                String condition = instances.get(m).condition();
                assertEquals(condition + " && (" + softmax.get(i).when() + ")", plan.when().text());
                for (MaskKind kind : MaskKind.values()) {
                    Expr.Env env = new Expr.Env(1, 1, 1, Map.of(), 1, 1, 1, kind.ordinal());
                    assertEquals(instances.get(m).kinds().contains(kind), Expr.parseAllowingKnobs(condition, Set.of(),
                            Expr.ATTENTION_VARIABLES).evalBoolean(env),
                            condition + " for " + kind.id());
                }
                String suffix = "_" + instances.get(m).name().toLowerCase(java.util.Locale.ROOT);
                assertTrue(plan.launches().stream().allMatch(l -> l.kernel().endsWith(suffix)),
                        "kernels named for their kinds");
                for (int j = 0; j < softmax.get(i).launches().size(); j++) {
                    List<String> args = plan.launches().get(j).args().stream().map(Object::toString).toList();
                    assertEquals(softmax.get(i).launches().get(j).args(), args.subList(0, args.size() - 6));
                    assertEquals(List.of("lengths", "mask", "scale", "heads", "queries", "mask_kind"),
                            args.subList(args.size() - 6, args.size()));
                }
            }
        }
        assertEquals(DefaultGenomes.float32().normalized(Precision.BF16).blockRows().online(),
                g.blockRows().online(), "either reduce serves a fully masked row: the genome's gene, not forced");
    }

    /**
     * The default genome in each of {@code defaults}; it and the named genomes in each of {@code all}, with every 25th
     * genome of the dtype's population where {@code sampled}.
     */
    private static void compile(Operator op, List<Precision> defaults, List<Precision> all, boolean sampled)
            throws Exception {
        KernelBatch batch = new KernelBatch(KernelRenderer.library(op));
        for (Precision dtype : Precision.SUPPORTED) {
            if (!defaults.contains(dtype) && !all.contains(dtype)) {
                continue;
            }
            List<Genome> genomes = new java.util.ArrayList<>(List.of(DefaultGenomes.float32()));
            if (all.contains(dtype)) {
                genomes.addAll(DefaultGenomes.named(dtype).values());
                List<Genome> population = sampled ? AgentPopulation.genomes(dtype) : List.of();
                for (int i = 0; i < population.size(); i += 25) {
                    genomes.add(population.get(i));
                }
            }
            Task task = new Task(op, dtype);
            for (int i = 0; i < genomes.size(); i++) {
                String name = op.id() + "-g" + i + "-" + dtype + ".cu";
                batch.add(name, parse(name, genomes.get(i), task).source(), genomes.get(i).normalized(task), task);
            }
        }
        batch.compileAll(Nvrtc.load(Optional.empty()), "sm_90");
    }
}
