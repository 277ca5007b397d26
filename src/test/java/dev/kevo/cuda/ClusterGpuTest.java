package dev.kevo.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Thread-block clusters on a real GPU: the launch kevo makes through cuLaunchKernelEx, and kevo.h's cluster
 * helpers (rank, size, barrier, a peer's shared memory, cp.async) as the contract documents them.
 */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterGpuTest {
    /**
     * Every block publishes rank * 10 + its first element, then reads every peer's value after the barrier. The same
     * file is the model's system prompt's example of a cluster kernel known to work ({@code {{known_to_work}}}).
     */
    static final String KERNEL = Prelude.resource(ClusterGpuTest.class, "/dev/kevo/agent/llm/known-cluster.cu");

    /** A kernel of KevoClusterExchange's (dev.kevo.export.KevoHeaderNvccTest builds it with nvcc too). */
    private static final String EXCHANGE = "/dev/kevo/cuda/cluster-exchange.cu";

    private Gpu gpu;
    private Module module;

    @BeforeAll
    void open() {
        gpu = Gpu.open(0);
        Nvrtc nvrtc = Nvrtc.load(Optional.empty());
        module = gpu.load(nvrtc.compile("peers.cu", KERNEL, Prelude.headers(), gpu.info().arch()));
    }

    @AfterAll
    void close() {
        if (module != null) {
            module.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }

    private float[] run(int grid, int cluster) {
        int block = 64;
        float[] in = new float[grid * 32 * 4];
        for (int b = 0; b < grid; b++) {
            in[b * 128] = b;
        }
        float[] out = new float[grid * 16];
        try (DeviceBuffer x = gpu.alloc(4L * in.length); DeviceBuffer y = gpu.alloc(4L * out.length)) {
            gpu.upload(x.pointer(), in, 4L * in.length);
            gpu.fill(y.pointer(), -1, out.length);
            Kernel peers = module.kernel("peers");
            if (cluster == 1) {
                gpu.launch(peers, grid, block, 0, x.pointer(), y.pointer());
            } else {
                gpu.launchClustered(peers, grid, block, 0, cluster, x.pointer(), y.pointer());
            }
            gpu.download(y.pointer(), out, 4L * out.length);
        }
        return out;
    }

    @Test
    void blocksOfAClusterReadEachOthersSharedMemory() {
        float[] out = run(8, 4);
        for (int b = 0; b < 8; b++) {
            int first = b / 4 * 4;
            float[] expected = new float[4];
            for (int r = 0; r < 4; r++) {
                expected[r] = r * 10.0f + (first + r);
            }
            float[] seen = java.util.Arrays.copyOfRange(out, b * 16, b * 16 + 4);
            assertArrayEquals(expected, seen, "block " + b + " reads its cluster's four values, in rank order");
            assertEquals(4.0f, out[b * 16 + 15], "kevo_cluster_size()");
        }
    }

    /**
     * kevo.h's KevoClusterExchange, the genome's cluster kernels' exchange of a row's statistics: every block gives a
     * float and a float2 and reads all of its cluster's, in rank order, in clusters of 2 to 16 blocks (16 is
     * non-portable), several clusters a grid. Its push path (st.async on the peers' mbarriers) is what NVRTC 12.1 and
     * later compile; older ones compile the barrier path.
     */
    @Test
    void aClusterExchangeGivesEveryBlockItsClustersValuesInRankOrder() {
        String source = Prelude.resource(ClusterGpuTest.class, EXCHANGE);
        Nvrtc nvrtc = Nvrtc.load(Optional.empty());
        try (Module m = gpu.load(nvrtc.compile("exchange.cu", source, Prelude.headers(), gpu.info().arch()))) {
            for (int cluster : new int[] {2, 4, 8, 16}) {
                int grid = 3 * cluster;
                float[] out = new float[grid * 48];
                try (DeviceBuffer y = gpu.alloc(4L * out.length)) {
                    gpu.fill(y.pointer(), -1, out.length);
                    gpu.launchClustered(m.kernel("exchange"), grid, 128, 0, cluster, y.pointer());
                    gpu.download(y.pointer(), out, 4L * out.length);
                }
                for (int b = 0; b < grid; b++) {
                    int first = b / cluster * cluster;
                    for (int r = 0; r < cluster; r++) {
                        int peer = first + r;
                        String at = "cluster " + cluster + ", block " + b + ", rank " + r;
                        assertEquals(peer * 10.0f + r, out[b * 48 + r], at + ": float");
                        assertEquals(-(float) peer, out[b * 48 + 16 + r], at + ": float2.x");
                        assertEquals(0.5f * peer, out[b * 48 + 32 + r], at + ": float2.y");
                    }
                }
            }
        }
    }

    @Test
    void withoutAClusterEveryBlockIsAClusterOfOne() {
        float[] out = run(3, 1);
        for (int b = 0; b < 3; b++) {
            assertEquals(b, out[b * 16], "rank 0, its own value");
            assertEquals(1.0f, out[b * 16 + 15]);
        }
    }

    @Test
    void occupancyCountsTheClustersThatFitAtOnce() {
        Kernel peers = module.kernel("peers");
        int small = gpu.maxActiveClusters(peers, 64, 64, 0, 8);
        int huge = gpu.info().maxSharedPerBlockOptin() - 2048;
        module.allowDynamicShared(peers, huge);
        int whole = gpu.maxActiveClusters(peers, 64, 1024, huge, 16);
        // A block that fills an SM's shared memory has an SM to itself, so no more than sms / 16 such clusters fit.
        assertTrue(whole >= 1 && whole <= gpu.info().sms() / 16, "clusters of 16 whole-SM blocks at once: " + whole);
        assertTrue(small > whole, "small blocks share SMs: " + small + " clusters of 8 against " + whole);
    }

    @Test
    void aGridThatIsNoMultipleOfTheClusterIsRefusedByTheDriver() {
        assertThrows(CudaError.class, () -> run(6, 4));
    }
}
