package dev.kevo.eval;

import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.Verdict;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ResolvedPlan;
import java.util.List;

/** Runs a resolved launch plan from a loaded module: checks each launch against the device, then launches. */
final class PlanRunner {
    private final Gpu gpu;
    private final Module module;

    PlanRunner(Gpu gpu, Module module) {
        this.gpu = gpu;
        this.module = module;
    }

    /**
     * Rejects launches the device cannot run (threads over what the kernel's registers allow, shared memory over
     * the opt-in limit, a cooperative grid larger than what can be resident at once, a cluster that cannot be
     * resident at all) with a verdict instead of a driver error or a hang, and raises the dynamic shared memory
     * limit where a launch needs more than 48 KB.
     */
    void prepare(ResolvedPlan plan) {
        DeviceInfo device = gpu.info();
        for (ResolvedPlan.Launch launch : plan.launches()) {
            Kernel kernel = module.kernel(launch.kernel());
            if (launch.block() > kernel.maxThreadsPerBlock()) {
                throw new Rejection(Verdict.RESOURCES_EXCEEDED, launch.kernel() + ": block of " + launch.block()
                        + " threads, but with " + kernel.registers() + " registers per thread at most "
                        + kernel.maxThreadsPerBlock() + " fit");
            }
            long shared = (long) launch.smem() + kernel.staticSharedBytes();
            if (shared > device.maxSharedPerBlockOptin()) {
                throw new Rejection(Verdict.RESOURCES_EXCEEDED, launch.kernel() + ": " + shared
                        + " bytes of shared memory, the device allows " + device.maxSharedPerBlockOptin());
            }
            try {
                module.allowDynamicShared(kernel, launch.smem());
            } catch (CudaError e) {
                throw new Rejection(Verdict.RESOURCES_EXCEEDED, e.getMessage());
            }
            if (launch.cooperative()) {
                int perSm = module.residentBlocksPerSm(kernel, launch.block(), launch.smem());
                if ((long) perSm * device.sms() < launch.grid()) {
                    throw new Rejection(Verdict.RESOURCES_EXCEEDED, launch.kernel() + ": cooperative grid of "
                            + launch.grid() + " blocks, but only " + perSm + " per SM x " + device.sms()
                            + " SMs can be resident at once (registers " + kernel.registers() + ", shared "
                            + (launch.smem() + kernel.staticSharedBytes()) + " bytes per block)");
                }
            }
            if (launch.cluster() > 1) {
                int fit;
                try {
                    fit = gpu.maxActiveClusters(kernel, launch.grid(), launch.block(), launch.smem(), launch.cluster());
                } catch (CudaError e) {
                    throw new Rejection(Verdict.RESOURCES_EXCEEDED, launch.kernel() + ": cluster of "
                            + launch.cluster() + " blocks: " + e.getMessage());
                }
                if (fit == 0) {
                    throw new Rejection(Verdict.RESOURCES_EXCEEDED, launch.kernel() + ": a cluster of "
                            + launch.cluster() + " blocks of " + launch.block() + " threads and " + shared
                            + " bytes of shared memory cannot be resident on this device");
                }
            }
        }
    }

    void run(ResolvedPlan plan, Bindings buffers) {
        for (ResolvedPlan.Launch launch : plan.launches()) {
            List<Object> args = launch.args();
            Object[] values = new Object[args.size()];
            for (int i = 0; i < values.length; i++) {
                values[i] = args.get(i) instanceof KernelFile.Arg.Buffer buffer ? buffers.get(buffer.name())
                        : args.get(i);
            }
            Kernel kernel = module.kernel(launch.kernel());
            if (launch.cluster() > 1) {
                gpu.launchClustered(kernel, launch.grid(), launch.block(), launch.smem(), launch.cluster(), values);
            } else {
                gpu.launch(kernel, launch.grid(), launch.block(), launch.smem(), launch.cooperative(), values);
            }
        }
    }
}
