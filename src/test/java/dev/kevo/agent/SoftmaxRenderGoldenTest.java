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
 * renders, the renderer of that change still gave the digests before it. And again when the short, block and cluster
 * regimes gained masked_softmax's skipMasked gene, in the same way: without its three genes among the draws and with
 * {@code ,"skipMasked":false} taken out of the renders, the renderer of that change gave the digests before it.
 * And again when the 16-bit default split rows only up to one an SM (its split regime's rowsPct 200 became 100): the
 * 16-bit digests changed (the default, and the population bred from it), float32's did not, and with 200 the renderer
 * of that change gave the digests before it. And again when the 16-bit default's clusters became up to 16 blocks of
 * 256 threads (8 of 512 before): the 16-bit digests changed, float32's did not.
 */
class SoftmaxRenderGoldenTest {

    private static final Map<Precision, String> DIGESTS = Map.of(
            Precision.FP32, "2da12c7bf6688450c68b70ed5ecb71cea67e61ef291fff7abe2c28cab4caaf16",
            Precision.BF16, "afc005c8d798ed215293d8b7c2eb22beb083ad3fddfbae6ce3b4f97b3ab2cce7",
            Precision.FP16, "e41ebd29e6d0cd36d5c14c2098f700e3ce14d1041bb2974048cbd4bbc68450fd",
            Precision.BF16_FP32, "0153407e0cca5f49359335b8086c830941692e32677f7d7a4dd7f44c2b778e3f");

    @Test
    void softmaxFilesAreUnchanged() throws Exception {
        for (Precision dtype : Precision.SUPPORTED) {
            assertEquals(DIGESTS.get(dtype), digest(dtype), "softmax files in " + dtype);
        }
    }

    static String digest(Precision dtype) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        List<Genome> genomes = new java.util.ArrayList<>(List.of(DefaultGenomes.float32()));
        genomes.addAll(DefaultGenomes.named(dtype).values());
        genomes.addAll(AgentPopulation.genomes(dtype));
        for (Genome g : genomes) {
            sha.update(KernelRenderer.render(g, dtype).getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
