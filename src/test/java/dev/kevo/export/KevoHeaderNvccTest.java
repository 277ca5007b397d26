package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.cuda.Prelude;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kevo.h as an export ships it, built by nvcc for sm_90 without a GPU: KevoClusterExchange takes its push path with
 * a compiler that has st.async (CUDA 12.1 and later; NVRTC 11.8, CI's, compiles the barrier path in the genome's
 * tests), and that path assembles. ClusterGpuTest runs the same kernel on a GPU.
 */
@NvccTest
class KevoHeaderNvccTest {

    @Test
    void theClusterExchangePushesWithoutAFencedBarrier(@TempDir Path tmp) throws Exception {
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        Files.writeString(tmp.resolve(Prelude.NAME), Prelude.headers().get(Prelude.NAME));
        Files.writeString(tmp.resolve("exchange.cu"), Prelude.resource(KevoHeaderNvccTest.class,
                "/dev/kevo/cuda/cluster-exchange.cu"));
        String version = Toolchain.succeed(tmp, 60, nvcc, "--version");
        java.util.regex.Matcher release = java.util.regex.Pattern.compile("release (\\d+)\\.(\\d+)").matcher(version);
        assertTrue(release.find(), version);
        boolean push = Integer.parseInt(release.group(1)) * 100 + Integer.parseInt(release.group(2)) >= 1201;
        // One build to a cubin (ptxas assembles the push path), keeping the PTX it assembled.
        Toolchain.succeed(tmp, 300, nvcc, "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings", "-cubin",
                "--keep", "--keep-dir", tmp.toString(), "exchange.cu", "-o", "exchange.cubin");
        String ptx = Files.readString(tmp.resolve("exchange.ptx"));
        assertTrue(ptx.contains("barrier.cluster.wait"), "the peers' mbarriers, or their values, wait for the barrier");
        if (push) {
            assertTrue(ptx.contains("st.async") && ptx.contains("mbarrier.try_wait"), "pushed, waited on:\n" + ptx);
            assertFalse(ptx.contains("barrier.cluster.arrive.aligned"), "no release arrival (a GPU-scope fence)");
        } else {
            assertFalse(ptx.contains("st.async"), "nvcc " + release.group() + " has no st.async");
        }
    }
}
