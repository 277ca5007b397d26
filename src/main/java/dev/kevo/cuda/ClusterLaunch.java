package dev.kevo.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import jcuda.driver.CUstream;

/**
 * Launches in thread-block clusters, through the driver's {@code cuLaunchKernelEx} called with java.lang.foreign:
 * JCuda binds no launch that takes a cluster size, and a kernel's cluster size cannot be set at run time any other
 * way (the function attribute {@code CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH} is refused once the kernel is
 * loaded, with {@code CUDA_ERROR_INVALID_CLUSTER_SIZE}; {@code __cluster_dims__} fixes it at compile time, where a
 * plan's expression cannot reach).
 */
final class ClusterLaunch {
    /** {@code CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION}. */
    private static final int CLUSTER_DIMENSION = 4;
    /** {@code sizeof(CUlaunchConfig)} on 64-bit hosts: six grid and block sizes, shared bytes, stream, attributes. */
    private static final long CONFIG_BYTES = 56;
    /** {@code sizeof(CUlaunchAttribute)}: a 4-byte id padded to 8, then a 64-byte value union. */
    private static final long ATTRIBUTE_BYTES = 72;

    private final MethodHandle launchEx;
    private final MethodHandle maxActiveClusters;

    private ClusterLaunch(MethodHandle launchEx, MethodHandle maxActiveClusters) {
        this.launchEx = launchEx;
        this.maxActiveClusters = maxActiveClusters;
    }

    /** The driver's entry points; the driver is loaded already (JCuda opened it), so this only looks them up. */
    static ClusterLaunch bind() {
        Linker linker = Linker.nativeLinker();
        SymbolLookup cuda = SymbolLookup.libraryLookup("libcuda.so.1", Arena.global());
        String hint = " (a driver older than CUDA 12 cannot launch thread-block clusters)";
        return new ClusterLaunch(
                NativeLibraries.downcall(linker, cuda, "cuLaunchKernelEx", FunctionDescriptor.of(ValueLayout.JAVA_INT,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.ADDRESS),
                        "libcuda.so.1", hint),
                NativeLibraries.downcall(linker, cuda, "cuOccupancyMaxActiveClusters", FunctionDescriptor.of(
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS),
                        "libcuda.so.1", hint));
    }

    /** Enqueues the launch; returns the driver's result code. */
    int launch(Kernel kernel, int grid, int block, int smem, int cluster, CUstream stream, Object[] args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ValueLayout.ADDRESS, Math.max(1, args.length));
            for (int i = 0; i < args.length; i++) {
                params.setAtIndex(ValueLayout.ADDRESS, i, value(arena, args[i]));
            }
            return (int) launchEx.invokeExact(config(arena, grid, block, smem, cluster, NativeAddress.of(stream)),
                    NativeAddress.of(kernel.function()), params, MemorySegment.NULL);
        } catch (Throwable t) {
            throw NativeLibraries.rethrow(t);
        }
    }

    /** How many clusters of this launch can be resident at once: 0 means the launch cannot run at all. */
    int maxActiveClusters(Kernel kernel, int grid, int block, int smem, int cluster) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            int rc = (int) maxActiveClusters.invokeExact(count, NativeAddress.of(kernel.function()),
                    config(arena, grid, block, smem, cluster, 0L));
            CudaError.check(rc, "cuOccupancyMaxActiveClusters for " + kernel.name());
            return count.get(ValueLayout.JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibraries.rethrow(t);
        }
    }

    private static MemorySegment config(Arena arena, int grid, int block, int smem, int cluster, long stream) {
        MemorySegment attribute = arena.allocate(ATTRIBUTE_BYTES, 8);
        attribute.set(ValueLayout.JAVA_INT, 0, CLUSTER_DIMENSION);
        attribute.set(ValueLayout.JAVA_INT, 8, cluster);
        attribute.set(ValueLayout.JAVA_INT, 12, 1);
        attribute.set(ValueLayout.JAVA_INT, 16, 1);
        MemorySegment config = arena.allocate(CONFIG_BYTES, 8);
        int[] dims = {grid, 1, 1, block, 1, 1, smem};
        for (int i = 0; i < dims.length; i++) {
            config.set(ValueLayout.JAVA_INT, 4L * i, dims[i]);
        }
        config.set(ValueLayout.JAVA_LONG, 32, stream);
        config.set(ValueLayout.ADDRESS, 40, attribute);
        config.set(ValueLayout.JAVA_INT, 48, 1);
        return config;
    }

    private static MemorySegment value(Arena arena, Object arg) {
        return switch (arg) {
            case DevicePointer p -> arena.allocateFrom(ValueLayout.JAVA_LONG, NativeAddress.of(p.handle()));
            case Integer v -> arena.allocateFrom(ValueLayout.JAVA_INT, v);
            case Long v -> arena.allocateFrom(ValueLayout.JAVA_LONG, v);
            case Double v -> arena.allocateFrom(ValueLayout.JAVA_DOUBLE, v);
            case Float v -> arena.allocateFrom(ValueLayout.JAVA_FLOAT, v);
            default -> throw new IllegalArgumentException("unsupported kernel argument " + arg);
        };
    }
}
