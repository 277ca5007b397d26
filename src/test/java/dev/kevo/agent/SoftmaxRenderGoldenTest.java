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
 * draws: with the gene's old values the renderer of that change still gave 56ee308's digests.
 */
class SoftmaxRenderGoldenTest {

    private static final Map<Precision, String> DIGESTS = Map.of(
            Precision.FP32, "f03f24ec2069bc180c0445d6ed740d305d2b2b7a5dd6325ca0f118589ff51aee",
            Precision.BF16, "f86bfbb8f210c2215c62da927f1972994aa40d0b317d888dbf0d83bd5612789f",
            Precision.FP16, "6140fe78d36f5d0795d9b26e179ac3bb319d6937fa86c778be413bf35a23b0b0",
            Precision.BF16_FP32, "603782e5f5b9a8a8434cebf58e6f53af7aa01244132acc863a23545a9e7f000a");

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
