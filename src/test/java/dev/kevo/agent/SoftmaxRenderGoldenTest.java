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
 * And again when the block regime gained its minBlocks gene, which every genome's JSON line now carries and which
 * changes the population's draws: without the gene among the draws and with {@code ,"minBlocks":0} taken out of the
 * renders, the renderer of that change still gave the digests before it.
 */
class SoftmaxRenderGoldenTest {

    private static final Map<Precision, String> DIGESTS = Map.of(
            Precision.FP32, "cd63b32035656f7ce0ad8e32dea30be501f8ab3e9e1d7f81c07cf622425d4770",
            Precision.BF16, "78ff52db88df895e7956bd7273370b65ab6a507d5ee2ddba5159d0a7bcb31d06",
            Precision.FP16, "6ccc198425312e8139d4fd6365c485b3d6023e61078deda4abef279f5d2ad2c4",
            Precision.BF16_FP32, "528e1c3e3ebe9bdd9839dfb4456569134caf139247172b9c40e8049a27ef9ef8");

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
