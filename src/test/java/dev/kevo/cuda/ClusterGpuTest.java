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
    /** Every block publishes rank * 10 + its first element, then reads every peer's value after the barrier. */
    static final String KERNEL = """
            #include "kevo.h"
            extern "C" __global__ void peers(const float* x, float* out, int n) {
                __shared__ float mine;
                __shared__ float4 staged[32];
                kevo_cp_async16(&staged[threadIdx.x], x + 4 * (blockIdx.x * 32 + threadIdx.x), threadIdx.x < 32);
                kevo_cp_async_wait();
                const unsigned size = kevo_cluster_size(), rank = kevo_cluster_rank();
                if (threadIdx.x == 0) mine = rank * 10.0f + staged[0].x;
                kevo_cluster_sync();
                if (threadIdx.x < size) {
                    out[blockIdx.x * 16 + threadIdx.x] = kevo_cluster_ld_f32(&mine, threadIdx.x);
                }
                if (threadIdx.x == 0) out[blockIdx.x * 16 + 15] = size;
                kevo_cluster_arrive();
                kevo_cluster_wait();
            }
            """;

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
                gpu.launch(peers, grid, block, 0, x.pointer(), y.pointer(), grid);
            } else {
                gpu.launchClustered(peers, grid, block, 0, cluster, x.pointer(), y.pointer(), grid);
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

    @Test
    void withoutAClusterEveryBlockIsAClusterOfOne() {
        float[] out = run(3, 1);
        for (int b = 0; b < 3; b++) {
            assertEquals(b, out[b * 16], "rank 0, its own value");
            assertEquals(1.0f, out[b * 16 + 15]);
        }
    }

    @Test
    void occupancySaysWhetherAClusterFits() {
        Kernel peers = module.kernel("peers");
        assertTrue(gpu.maxActiveClusters(peers, 8, 64, 0, 8) > 0, "eight small blocks fit");
        int huge = gpu.info().maxSharedPerBlockOptin();
        module.allowDynamicShared(peers, huge - 2048);
        int fit;
        try {
            fit = gpu.maxActiveClusters(peers, 64, 1024, huge - 2048, 16);
        } catch (CudaError e) {
            fit = 0;  // some drivers refuse the query outright: the launch cannot run either way
        }
        assertEquals(0, fit, "sixteen blocks that each fill an SM's shared memory exceed a GPC");
    }

    @Test
    void aGridThatIsNoMultipleOfTheClusterIsRefusedByTheDriver() {
        assertThrows(CudaError.class, () -> run(6, 4));
    }
}
