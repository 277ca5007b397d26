package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ParameterTypes;
import dev.kevo.task.SourcePolicy;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The genome rendered for log_softmax: the same kernels as softmax's with log_softmax's epilogue, a file that says
 * its operator, and the agent rendering it for a log_softmax campaign. Whether its values are right takes a GPU
 * (LogSoftmaxGpuTest judges the default genome); here every sampled file must compile, as kevo check compiles it.
 */
@NeedsNvrtc
class LogSoftmaxGenomeTest {

    private static Task task(Precision dtype) {
        return new Task(Operators.LOG_SOFTMAX, dtype);
    }

    private static KernelFile parse(String name, Genome genome, Precision dtype) {
        KernelFile file = ContractParser.parse(name, null, KernelRenderer.render(genome, task(dtype)));
        assertEquals(Operators.LOG_SOFTMAX, file.op(), name + " says it is log_softmax");
        assertEquals(List.of(dtype), file.dtypes(), name);
        assertEquals(Optional.empty(), SourcePolicy.violation(file.source()), name);
        assertEquals(Optional.empty(), ParameterTypes.violation(file, dtype), name);
        return file;
    }

    @Test
    void theHeaderSaysLogSoftmaxAndTheLibraryHoldsOnlyItsEpilogue() {
        String log = KernelRenderer.render(BuiltinAgent.defaultGenome(), task(Precision.FP32));
        assertTrue(log.startsWith("/*@kevo\n{\n  \"op\": \"log_softmax\",\n"), log.substring(0, 60));
        assertTrue(log.contains("struct Epilogue"), "log_softmax's epilogue");
        // The softmax file of the genome as log_softmax normalizes it (its cluster regime's register share).
        String softmax = KernelRenderer.render(BuiltinAgent.defaultGenome().normalized(task(Precision.FP32)),
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
                    BuiltinAgent.defaultGenome()), Precision.BF16);
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
        Genome wide = BuiltinAgent.defaultGenome();  // 8 register and 8 shared vectors in its cluster regime
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
     * The default and named genomes and every 25th genome of each dtype's population, rendered for log_softmax, through
     * NVRTC (each distinct kernel once, as the softmax population is): every regime's kernels with the epilogue. Every
     * run compiles them in float32, as KernelRendererTest does softmax's named genomes, and the default genome in every
     * dtype; CI's second pass compiles the rest in every dtype.
     */
    @Test
    void theDefaultNamedAndSampledGenomesCompileInFloat32AndTheDefaultInEveryDtype() throws Exception {
        compile(Precision.SUPPORTED, List.of(Precision.FP32));
    }

    @Test
    @Exhaustive
    void theNamedAndSampledGenomesCompileInEveryOtherDtype() throws Exception {
        compile(List.of(), Precision.SUPPORTED.stream().filter(d -> d != Precision.FP32).toList());
    }

    /** The default genome in each of {@code defaults}; it, the named and sampled genomes in each of {@code all}. */
    private static void compile(List<Precision> defaults, List<Precision> all) throws Exception {
        KernelBatch batch = new KernelBatch(KernelRenderer.library(Operators.LOG_SOFTMAX));
        for (Precision dtype : Precision.SUPPORTED) {
            if (!defaults.contains(dtype) && !all.contains(dtype)) {
                continue;
            }
            List<Genome> genomes = new java.util.ArrayList<>(List.of(BuiltinAgent.defaultGenome()));
            if (all.contains(dtype)) {
                genomes.addAll(BuiltinAgent.namedGenomes(dtype).values());
                List<Genome> population = AgentPopulation.genomes(dtype);
                for (int i = 0; i < population.size(); i += 25) {
                    genomes.add(population.get(i));
                }
            }
            for (int i = 0; i < genomes.size(); i++) {
                String name = "log-g" + i + "-" + dtype + ".cu";
                batch.add(name, parse(name, genomes.get(i), dtype).source(), genomes.get(i).normalized(task(dtype)),
                        dtype);
            }
        }
        batch.compileAll(Nvrtc.load(Optional.empty()), "sm_90");
    }
}
