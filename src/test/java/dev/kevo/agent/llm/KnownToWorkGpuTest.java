package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What the system prompt calls known to work, on a real GPU: each file of {@code {{known_to_work}}} is compiled as
 * the prompt shows it and launched as its own plan says, and what it computes is checked.
 */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KnownToWorkGpuTest {
    private static final String BARRIER = "known-grid-barrier.cu";
    private static final String CLUSTER = "known-cluster.cu";
    private static final String ROWS = "known-row-copy.cu";
    /** A float NaN: y starts as it, so an element a kernel should have written and did not stands out. */
    private static final int POISON = 0x7fc00000;
    /** Elements of y past the shape's, which no file may write. */
    private static final int TAIL = 64;

    private Gpu gpu;
    private final Map<String, Module> modules = new HashMap<>();

    @BeforeAll
    void open() {
        gpu = Gpu.open(0);
        Nvrtc nvrtc = Nvrtc.load(Optional.empty());
        KnownToWork.SOURCES.forEach((name, source) ->
                modules.put(name, gpu.load(nvrtc.compile(name, source, Prelude.headers(), gpu.info().arch()))));
    }

    @AfterAll
    void close() {
        modules.values().forEach(Module::close);
        if (gpu != null) {
            gpu.close();
        }
    }

    /**
     * Runs the file's plan for the shape, each launch cooperative or clustered as the plan says, with x = in; y (the
     * shape's elements and a tail past them) comes back. {@code grid} may change each launch's grid.
     */
    private float[] run(String name, Shape shape, float[] in, IntUnaryOperator grid) {
        ResolvedPlan plan = PlanResolver.resolve(ContractParser.parse(name, null, KnownToWork.SOURCES.get(name)), shape,
                gpu.info().sms());
        float[] out = new float[in.length + TAIL];
        try (DeviceBuffer x = gpu.alloc(4L * in.length); DeviceBuffer y = gpu.alloc(4L * out.length)) {
            gpu.upload(x.pointer(), in, 4L * in.length);
            gpu.fill(y.pointer(), POISON, out.length);
            for (ResolvedPlan.Launch l : plan.launches()) {
                // An integer goes as it is; no file here has a workspace, and the launch refuses one.
                Object[] args = l.args().stream().map(a -> a.equals(new KernelFile.Arg.Buffer("x")) ? x.pointer()
                        : a.equals(new KernelFile.Arg.Buffer("y")) ? y.pointer() : a).toArray();
                Kernel kernel = modules.get(name).kernel(l.kernel());
                int g = grid.applyAsInt(l.grid());
                if (l.cluster() > 1) {
                    gpu.launchClustered(kernel, g, l.block(), l.smem(), l.cluster(), args);
                } else {
                    gpu.launch(kernel, g, l.block(), l.smem(), l.cooperative(), args);
                }
            }
            gpu.download(y.pointer(), out, 4L * out.length);
        }
        return out;
    }

    private static float[] ascending(Shape shape) {
        float[] in = new float[shape.rows() * shape.cols()];
        for (int i = 0; i < in.length; i++) {
            in[i] = i + 1;
        }
        return in;
    }

    private static void untouchedFrom(float[] out, int from, String what) {
        for (int i = from; i < out.length; i++) {
            assertTrue(Float.isNaN(out[i]), what + ": y[" + i + "] was written: " + out[i]);
        }
    }

    /**
     * Every block's value is visible to every block after the barrier, and the second barrier keeps them until all
     * have summed; the counter stays right over launches of other grids of the same module.
     */
    @Test
    void theGridBarrierHoldsInEveryLaunchWhateverItsGrid() {
        int sms = gpu.info().sms();
        Shape shape = new Shape(1, 4 * sms);
        for (int grid : new int[] {sms, 1, sms / 2 + 1, 2 * sms, sms}) {
            float[] out = run(BARRIER, shape, ascending(shape), g -> grid);
            float sum = grid * (grid + 1) / 2.0f;
            for (int b = 0; b < grid; b++) {
                assertEquals(sum, out[b], "grid " + grid + ": block " + b + "'s sum of every block's value");
            }
            untouchedFrom(out, grid, "grid " + grid);
        }
    }

    @Test
    void theBlocksOfEachClusterReadEveryPeersValue() {
        Shape shape = new Shape(3, 512);
        float[] in = new float[shape.rows() * shape.cols()];
        int grid = 4 * shape.rows();
        for (int b = 0; b < grid; b++) {
            in[128 * b] = b;
        }
        float[] out = run(CLUSTER, shape, in, g -> g);
        for (int b = 0; b < grid; b++) {
            float[] expected = new float[16];
            Arrays.fill(expected, Float.NaN);
            for (int rank = 0; rank < 4; rank++) {
                expected[rank] = rank * 10.0f + (b / 4 * 4 + rank);
            }
            expected[15] = 4;
            assertArrayEquals(expected, Arrays.copyOfRange(out, 16 * b, 16 * b + 16), "block " + b);
        }
        untouchedFrom(out, 16 * grid, "past the last block's");
    }

    /** Rows of every alignment, shorter than a float4, and longer than one float4 a thread. */
    @Test
    void theVectorCopyCopiesRowsThatAreNot16ByteAligned() {
        for (Shape shape : new Shape[] {new Shape(7, 1001), new Shape(5, 3), new Shape(3, 1), new Shape(6, 4102)}) {
            float[] in = ascending(shape);
            float[] out = run(ROWS, shape, in, g -> g);
            assertArrayEquals(in, Arrays.copyOf(out, in.length), shape.toString());
            untouchedFrom(out, in.length, shape.toString());
        }
    }

    @Test
    void launchBoundsAreTheKernelsLimit() {
        Kernel kernel = modules.get(ROWS).kernel("copy_rows");
        assertEquals(256, kernel.maxThreadsPerBlock(), "__launch_bounds__(256), as the driver reads it back");
        try (DeviceBuffer x = gpu.alloc(4L * 512); DeviceBuffer y = gpu.alloc(4L * 512)) {
            gpu.launch(kernel, 1, 256, 0, x.pointer(), y.pointer(), 512);
            assertThrows(CudaError.class, () -> gpu.launch(kernel, 1, 512, 0, x.pointer(), y.pointer(), 512));
            gpu.synchronize();
        }
    }
}
