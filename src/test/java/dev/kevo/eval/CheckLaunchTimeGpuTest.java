package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.task.op.Task;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Tolerance;
import dev.kevo.data.Shape;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What a checked launch's time counts, the time slow-when-checked holds against the kernel's timed median: the GPU's
 * own work, not the host's enqueueing (a kernel's first launch pays one-time costs of the host and driver there,
 * which once made an honest seed look slow-when-checked), and all of the GPU's work, however it is spent.
 */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CheckLaunchTimeGpuTest {
    private static final Shape SHAPE = new Shape(64, 1024);
    private static final String SPIN = "extern \"C\" __global__ void spin(long long ns) {\n"
            + "    unsigned long long start; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(start));\n"
            + "    unsigned long long now = start;\n"
            + "    while (now - start < (unsigned long long)ns)\n"
            + "        asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(now));\n"
            + "}\n";
    private Gpu gpu;
    private TrustedKernels trusted;
    private Workbench bench;
    private Module module;
    private LaunchGate gate;
    private CorrectnessCheck check;

    @BeforeAll
    void open() {
        gpu = Gpu.open(0);
        Nvrtc nvrtc = Nvrtc.load(Optional.empty());
        trusted = new TrustedKernels(gpu, nvrtc, CompileCache.none());
        bench = new Workbench(gpu, List.of(SHAPE), 1, Task.softmax(Precision.FP32));
        module = gpu.load(nvrtc.compile("spin.cu", SPIN, Map.of(), gpu.info().arch()));
        gate = new LaunchGate(gpu, trusted);
        check = new CorrectnessCheck(gpu, trusted, bench, gate, Tolerance.defaults());
    }

    @AfterAll
    void close() {
        for (AutoCloseable c : new AutoCloseable[] {module, gate, bench, trusted, gpu}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    @Test
    void theHostsTimeEnqueueingALaunchIsNotTheKernels() {
        CorrectnessCheck.Measured m = check.measure(b -> {
            LockSupport.parkNanos(20_000_000);  // the host busy for 20 ms inside the launch, as on a first launch
            trusted.copy(b.pointer("x"), b.pointer("y"), SHAPE.elements());
        }, 0, SHAPE, 1, InputCase.NORMAL_1);
        assertTrue(m.launchWallMs() >= 20, "the host saw its own 20 ms: " + m.launchWallMs());
        assertTrue(m.launchGpuMs() < 2, "a copy of 256 KB counted as " + m.launchGpuMs() + " ms");
    }

    @Test
    void theKernelsOwnTimeCountsWhole() {
        Kernel spin = module.kernel("spin");
        CorrectnessCheck.Measured m = check.measure(b -> gpu.launch(spin, 1, 1, 0, 20_000_000L),
                0, SHAPE, 1, InputCase.NORMAL_1);
        assertTrue(m.launchGpuMs() >= 19, "a kernel that spins 20 ms counted as " + m.launchGpuMs() + " ms");
    }

    @Test
    void gpuWorkDuringTheHostsEnqueueingCountsWhole() {
        // A plan's first launch runs while the host still queues its next: taking the host's enqueueing time off the
        // events' interval, as kevo once did, took the kernel's own work off with it.
        Kernel spin = module.kernel("spin");
        CorrectnessCheck.Measured m = check.measure(b -> {
            gpu.launch(spin, 1, 1, 0, 20_000_000L);
            LockSupport.parkNanos(20_000_000);
            trusted.copy(b.pointer("x"), b.pointer("y"), SHAPE.elements());
        }, 0, SHAPE, 1, InputCase.NORMAL_1);
        assertTrue(m.launchGpuMs() >= 19, "a 20 ms spin queued before a 20 ms host pause counted as "
                + m.launchGpuMs() + " ms");
    }

    @Test
    void aHostPauseBetweenTwoLaunchesIsNotTheKernels() {
        // Between two launches of one plan the GPU, on an idle stream, would wait on the host inside the interval.
        CorrectnessCheck.Measured m = check.measure(b -> {
            trusted.copy(b.pointer("x"), b.pointer("y"), SHAPE.elements());
            LockSupport.parkNanos(20_000_000);
            trusted.copy(b.pointer("x"), b.pointer("y"), SHAPE.elements());
        }, 0, SHAPE, 1, InputCase.NORMAL_1);
        assertTrue(m.launchGpuMs() < 2, "two copies of 256 KB 20 ms apart on the host counted as "
                + m.launchGpuMs() + " ms");
    }
}
