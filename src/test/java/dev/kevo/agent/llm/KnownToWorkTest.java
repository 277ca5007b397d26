package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.NeedsNvrtc;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The model is shown kernels that kevo's GPU tests compile and run (ClusterGpuTest launches the cluster example):
 * the prompt carries the file as it is, and the file compiles under kevo's NVRTC setup.
 */
class KnownToWorkTest {

    @Test
    void theSystemPromptCarriesTheTestedClusterKernelVerbatim() {
        String system = PromptBuilderTest.builder(Fixtures.IMPROVE_ONLY).forProposal(Fixtures.request()).system();
        assertTrue(system.contains(PromptBuilder.KNOWN_CLUSTER), "the cluster example, as the GPU test runs it");
        assertTrue(PromptBuilder.KNOWN_CLUSTER.contains("kevo_cluster_ld_f32"), PromptBuilder.KNOWN_CLUSTER);
    }

    @Test
    @NeedsNvrtc
    void theClusterExampleCompilesForHopper() {
        Compilation c = Nvrtc.load(Optional.empty()).compile("known-cluster.cu", PromptBuilder.KNOWN_CLUSTER,
                Prelude.headers(), "sm_90");
        assertTrue(c.definesKernel("peers"), c.log());
    }
}
