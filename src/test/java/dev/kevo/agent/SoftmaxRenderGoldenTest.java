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
 */
class SoftmaxRenderGoldenTest {

    private static final Map<Precision, String> DIGESTS = Map.of(
            Precision.FP32, "36961749b2d931c0003ab0efcf784356162ea299fbe20cbbaa17328d43d5b8ff",
            Precision.BF16, "249d463bca0c286ef0e9f18256ebf8ea367cd5a68afc2474fd5a5bb9818bbfa2",
            Precision.FP16, "a46a6605a3fe06cdbe0fbff9c9c38a5b7853fc4479882b7c5bfc0b304dce1e25",
            Precision.BF16_FP32, "93c3f898f469be76649265696a63007804b7c2c28a4c13866a7cfd212eb42f44");

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
