package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kevo.data.Precision;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Softmax campaigns must not change when the genome learns other operators: the softmax files of the default genome,
 * the named genomes and the 200-genome population of every dtype (random and bred through the agent, so the agent's
 * path is covered too) are byte for byte what they were before log_softmax, by SHA-256. The digests were taken from
 * the renderer of main at 56ee308, before the epilogue; a change here means every softmax campaign's kernels changed.
 * They were taken again when the cluster regime's maxCluster gene gained 16, which changes which genomes the population
 * draws: with the gene's old values the renderer of that change still gave 56ee308's digests. And again when the
 * cluster kernel's exchange of the blocks' (max, sum) pairs became kevo.h's KevoClusterExchange (pushed into the peers'
 * shared memory instead of read after a fenced cluster barrier): the cluster kernels' text, nothing else, changed.
 * And again when the FAST exp mode became ex2.approx.ftz (it rendered as exp2f's code before) and the cluster kernels
 * took FAST for a 16-bit x: the exponential's text, nothing else, changed. And again when the 16-bit default genome's
 * cluster regime took its exponentials in groups of two shared vectors (group 2): float32's digest did not change.
 */
class SoftmaxRenderGoldenTest {

    private static final Map<Precision, String> DIGESTS = Map.of(
            Precision.FP32, "d87074a0ab284eeb33f328fbc892ba6993f27962b705bdcff7855d52311beffb",
            Precision.BF16, "0829ff0e3fd4c520fc7665d9d2afc623539c3ce769963431aa86612f3ea79918",
            Precision.FP16, "d8d2369338c8fa997ad17b015f11f8ad3b04c0db14c516fd7494d1c1452c829c",
            Precision.BF16_FP32, "20796b6392af4759e20b131c61bf44ceb38f18bd5549b0b9753987e8a3950e5e");

    @Test
    void softmaxFilesAreUnchanged() throws Exception {
        for (Precision dtype : Precision.SUPPORTED) {
            assertEquals(DIGESTS.get(dtype), digest(dtype), "softmax files in " + dtype);
        }
    }

    static String digest(Precision dtype) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        List<Genome> genomes = new java.util.ArrayList<>(List.of(BuiltinAgent.defaultGenome()));
        genomes.addAll(BuiltinAgent.namedGenomes(dtype).values());
        genomes.addAll(AgentPopulation.genomes(dtype));
        for (Genome g : genomes) {
            sha.update(KernelRenderer.render(g, dtype).getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
