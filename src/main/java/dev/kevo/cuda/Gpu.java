package dev.kevo.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_CLOCK_RATE;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;

import dev.kevo.KevoException;
import dev.kevo.data.DeviceInfo;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUjit_option;
import jcuda.driver.CUlimit;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import jcuda.driver.JITOptions;

/**
 * One GPU through the driver API: its primary context, one stream, memory, modules, launches and events.
 * Used from one thread; every call's return code is checked.
 */
public final class Gpu implements AutoCloseable {
    private static final int JIT_LOG_BYTES = 16 * 1024;
    /** The largest cluster every device with clusters runs; larger ones need {@link #NON_PORTABLE_CLUSTER_SIZE_ALLOWED}. */
    public static final int PORTABLE_CLUSTER = 8;
    /** {@code CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED}, which JCuda 12.6 does not name. */
    private static final int NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14;

    private final CUdevice device;
    private final CUstream stream;
    private final DeviceInfo info;
    /** Bound at the first clustered launch: most evaluations launch no cluster. */
    private ClusterLaunch clusters;
    private boolean closed;

    private Gpu(CUdevice device, CUstream stream, DeviceInfo info) {
        this.device = device;
        this.stream = stream;
        this.info = info;
    }

    /** Number of CUDA devices, or 0 with no driver or no device. */
    public static int count() {
        if (!unavailableReason().isEmpty()) {
            return 0;
        }
        int[] n = new int[1];
        return JCudaDriver.cuDeviceGetCount(n) == CUresult.CUDA_SUCCESS ? n[0] : 0;
    }

    /** Why no device can be opened (for a message or a test's skip note); empty when one can. */
    public static String unavailableReason() {
        try {
            JCudaDriver.setExceptionsEnabled(false);
            int rc = JCudaDriver.cuInit(0);
            if (rc != CUresult.CUDA_SUCCESS) {
                return "no usable GPU: cuInit failed with " + CUresult.stringFor(rc);
            }
            int[] n = new int[1];
            return JCudaDriver.cuDeviceGetCount(n) == CUresult.CUDA_SUCCESS && n[0] > 0 ? "" : "no CUDA device";
        } catch (LinkageError e) {
            // JCuda's first use fails with UnsatisfiedLinkError, every later one with NoClassDefFoundError.
            return "no CUDA driver (libcuda.so could not be loaded)";
        }
    }

    public static Gpu open(int ordinal) {
        String reason = unavailableReason();
        if (!reason.isEmpty()) {
            throw KevoException.environment(reason);
        }
        int n = count();
        if (ordinal < 0 || ordinal >= n) {
            throw KevoException.environment("no GPU " + ordinal + ": this machine has " + n + " CUDA device(s)");
        }
        CUdevice device = new CUdevice();
        CudaError.check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet");
        CUcontext context = new CUcontext();
        CudaError.check(JCudaDriver.cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
        CudaError.check(JCudaDriver.cuCtxSetCurrent(context), "cuCtxSetCurrent");
        CUstream stream = new CUstream();
        CudaError.check(JCudaDriver.cuStreamCreate(stream, 0), "cuStreamCreate");
        return new Gpu(device, stream, readInfo(ordinal, device));
    }

    private static DeviceInfo readInfo(int ordinal, CUdevice device) {
        byte[] name = new byte[256];
        CudaError.check(JCudaDriver.cuDeviceGetName(name, name.length, device), "cuDeviceGetName");
        String[] bus = new String[1];
        JCudaDriver.cuDeviceGetPCIBusId(bus, 64, device);
        long[] memory = new long[1];
        CudaError.check(JCudaDriver.cuDeviceTotalMem(memory, device), "cuDeviceTotalMem");
        int[] driver = new int[1];
        CudaError.check(JCudaDriver.cuDriverGetVersion(driver), "cuDriverGetVersion");
        return DeviceInfo.builder().ordinal(ordinal).name(new String(name).trim().replace("\0", ""))
                .pciBusId(bus[0] == null ? "" : bus[0].trim())
                .ccMajor(attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR))
                .ccMinor(attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR))
                .sms(attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT))
                .l2Bytes(attribute(device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)).memoryBytes(memory[0])
                .maxThreadsPerBlock(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK))
                .maxSharedPerBlockOptin(attribute(device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN))
                .clockMHz(optionalAttribute(device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000)
                .memoryClockMHz(optionalAttribute(device, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE) / 1000)
                .memoryBusBits(optionalAttribute(device, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH))
                .driverVersion(driver[0] / 1000 + "." + (driver[0] % 1000) / 10).build();
    }

    private static int attribute(CUdevice device, int attribute) {
        int[] value = new int[1];
        CudaError.check(JCudaDriver.cuDeviceGetAttribute(value, attribute, device), "cuDeviceGetAttribute");
        return value[0];
    }

    /** Attributes newer drivers have deprecated read as 0 rather than failing. */
    private static int optionalAttribute(CUdevice device, int attribute) {
        int[] value = new int[1];
        return JCudaDriver.cuDeviceGetAttribute(value, attribute, device) == CUresult.CUDA_SUCCESS ? value[0] : 0;
    }

    public DeviceInfo info() {
        return info;
    }

    /** The stream's native handle, for a library that launches its own kernels on kevo's stream (cuDNN). */
    long streamAddress() {
        return NativeAddress.of(stream);
    }

    /** Loads a cubin; a load failure carries the driver's JIT error log. */
    public Module load(Compilation compilation) {
        JITOptions options = new JITOptions();
        options.putBytes(CUjit_option.CU_JIT_ERROR_LOG_BUFFER, new byte[JIT_LOG_BYTES]);
        options.putInt(CUjit_option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, JIT_LOG_BYTES);
        CUmodule module = new CUmodule();
        int rc = JCudaDriver.cuModuleLoadDataJIT(module, Pointer.to(compilation.cubin()), options);
        if (rc != CUresult.CUDA_SUCCESS) {
            String log = options.getString(CUjit_option.CU_JIT_ERROR_LOG_BUFFER);
            throw new CudaError(rc, "cuModuleLoadData(" + compilation.name() + ")"
                    + (log == null || log.isBlank() ? "" : ": " + log.trim()));
        }
        return new Module(compilation.name(), module);
    }

    public DeviceBuffer alloc(long bytes) {
        CUdeviceptr pointer = new CUdeviceptr();
        int rc = JCudaDriver.cuMemAlloc(pointer, Math.max(bytes, 1));
        if (rc == CUresult.CUDA_ERROR_OUT_OF_MEMORY) {
            throw KevoException.environment("GPU " + info.ordinal() + " is out of memory allocating " + bytes
                    + " bytes");
        }
        CudaError.check(rc, "cuMemAlloc(" + bytes + ")");
        return new DeviceBuffer(pointer, bytes);
    }

    /** Fills {@code words} 32-bit words with a bit pattern, on the stream. */
    public void fill(DevicePointer target, int pattern, long words) {
        if (words > 0) {
            CudaError.check(JCudaDriver.cuMemsetD32Async(target.handle(), pattern, words, stream),
                    "cuMemsetD32Async");
        }
    }

    public void copy(DevicePointer target, DevicePointer source, long bytes) {
        CudaError.check(JCudaDriver.cuMemcpyDtoDAsync(target.handle(), source.handle(), bytes, stream),
                "cuMemcpyDtoDAsync");
    }

    /** Copies {@code bytes} from the device into {@code host}, once all queued work is done. */
    public void download(DevicePointer source, float[] host, long bytes) {
        download(source, Pointer.to(host), bytes);
    }

    /** As {@link #download(DevicePointer, float[], long)}. */
    public void download(DevicePointer source, int[] host, long bytes) {
        download(source, Pointer.to(host), bytes);
    }

    /** As {@link #download(DevicePointer, float[], long)}. */
    public void download(DevicePointer source, long[] host, long bytes) {
        download(source, Pointer.to(host), bytes);
    }

    /** As {@link #download(DevicePointer, float[], long)}. */
    public void download(DevicePointer source, double[] host, long bytes) {
        download(source, Pointer.to(host), bytes);
    }

    private void download(DevicePointer source, Pointer host, long bytes) {
        synchronize();
        CudaError.check(JCudaDriver.cuMemcpyDtoH(host, source.handle(), bytes), "cuMemcpyDtoH");
    }

    /** Copies {@code bytes} of {@code host} to the device, once all queued work is done. */
    public void upload(DevicePointer target, float[] host, long bytes) {
        synchronize();
        CudaError.check(JCudaDriver.cuMemcpyHtoD(target.handle(), Pointer.to(host), bytes), "cuMemcpyHtoD");
    }

    /**
     * Sets aside {@code bytes} of L2 for persisting accesses in this context; a setting the driver refuses (as
     * under MPS) is left as it is.
     */
    public void setPersistingL2Limit(long bytes) {
        JCudaDriver.cuCtxSetLimit(CUlimit.CU_LIMIT_PERSISTING_L2_CACHE_SIZE, bytes);
    }

    /**
     * Returns every persisting L2 line to normal (cuCtxResetPersistingL2Cache). Not ordered with the stream, so
     * only between synchronised stretches of work.
     */
    public void resetPersistingL2() {
        JCudaDriver.cuCtxResetPersistingL2Cache();
    }

    /**
     * Launches on the stream. Arguments: {@link DevicePointer}, {@link Integer} (int), {@link Long}
     * (64-bit integer), {@link Double}, {@link Float}.
     */
    public void launch(Kernel kernel, int grid, int block, int smem, Object... args) {
        launch(kernel, grid, block, smem, false, args);
    }

    /**
     * A cooperative launch has every block resident at once, or is refused by the driver: kernels that wait for
     * each other across the grid need that, and would otherwise hang.
     */
    public void launch(Kernel kernel, int grid, int block, int smem, boolean cooperative, Object... args) {
        Pointer[] params = new Pointer[args.length];
        for (int i = 0; i < args.length; i++) {
            params[i] = switch (args[i]) {
                case DevicePointer p -> Pointer.to(p.handle());
                case Integer v -> Pointer.to(new int[] {v});
                case Long v -> Pointer.to(new long[] {v});
                case Double v -> Pointer.to(new double[] {v});
                case Float v -> Pointer.to(new float[] {v});
                default -> throw new IllegalArgumentException("unsupported kernel argument " + args[i]);
            };
        }
        CudaError.check(cooperative
                ? JCudaDriver.cuLaunchCooperativeKernel(kernel.function(), grid, 1, 1, block, 1, 1, smem, stream,
                        Pointer.to(params))
                : JCudaDriver.cuLaunchKernel(kernel.function(), grid, 1, 1, block, 1, 1, smem, stream,
                        Pointer.to(params), null), "launch of " + kernel.name());
    }

    /**
     * Launches in thread-block clusters of {@code cluster} consecutive blocks (compute capability 9.0 and later),
     * which are resident together and can read each other's shared memory. Past 8 blocks a cluster is
     * non-portable: the kernel is opted in, and the device decides whether it fits.
     */
    public void launchClustered(Kernel kernel, int grid, int block, int smem, int cluster, Object... args) {
        allowClusterSize(kernel, cluster);
        CudaError.check(clusters().launch(kernel, grid, block, smem, cluster, stream, args),
                "clustered launch of " + kernel.name());
    }

    /** How many clusters of such a launch fit on the device at once; 0 when not even one does. */
    public int maxActiveClusters(Kernel kernel, int grid, int block, int smem, int cluster) {
        allowClusterSize(kernel, cluster);
        return clusters().maxActiveClusters(kernel, grid, block, smem, cluster);
    }

    private void allowClusterSize(Kernel kernel, int cluster) {
        if (cluster > PORTABLE_CLUSTER) {
            CudaError.check(JCudaDriver.cuFuncSetAttribute(kernel.function(),
                    NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1), "allowing " + kernel.name() + " a non-portable cluster");
        }
    }

    private ClusterLaunch clusters() {
        if (clusters == null) {
            clusters = ClusterLaunch.bind();
        }
        return clusters;
    }

    /**
     * A 4-byte word of page-locked host memory that kernels can read through {@code pointer()}: for a host-side
     * flag the GPU polls.
     */
    public HostFlag hostFlag() {
        Pointer host = new Pointer();
        CudaError.check(JCudaDriver.cuMemHostAlloc(host, 4, JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP),
                "cuMemHostAlloc");
        CUdeviceptr device = new CUdeviceptr();
        CudaError.check(JCudaDriver.cuMemHostGetDevicePointer(device, host, 0), "cuMemHostGetDevicePointer");
        return new HostFlag(host, new DevicePointer(device));
    }

    /** A word of mapped host memory: written by the host, read by kernels. */
    public static final class HostFlag implements AutoCloseable {
        private final Pointer host;
        private final DevicePointer pointer;

        private HostFlag(Pointer host, DevicePointer pointer) {
            this.host = host;
            this.pointer = pointer;
        }

        /** Where kernels read the word. */
        public DevicePointer pointer() {
            return pointer;
        }

        public void set(int value) {
            host.getByteBuffer(0, 4).order(java.nio.ByteOrder.nativeOrder()).putInt(0, value);
        }

        @Override
        public void close() {
            JCudaDriver.cuMemFreeHost(host);
        }
    }

    public Event event() {
        CUevent event = new CUevent();
        CudaError.check(JCudaDriver.cuEventCreate(event, 0), "cuEventCreate");
        return new Event(event);
    }

    public void record(Event event) {
        CudaError.check(JCudaDriver.cuEventRecord(event.handle(), stream), "cuEventRecord");
    }

    /** Milliseconds between two recorded events; both must have completed. */
    public float elapsedMillis(Event start, Event end) {
        float[] ms = new float[1];
        CudaError.check(JCudaDriver.cuEventElapsedTime(ms, start.handle(), end.handle()), "cuEventElapsedTime");
        return ms[0];
    }

    public void destroy(Event event) {
        JCudaDriver.cuEventDestroy(event.handle());
    }

    /**
     * Waits for all work in the context, not only this stream, so nothing a kernel started elsewhere escapes,
     * and surfaces any fault it raised.
     */
    public void synchronize() {
        CudaError.check(JCudaDriver.cuCtxSynchronize(), "cuCtxSynchronize");
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            JCudaDriver.cuStreamDestroy(stream);
            JCudaDriver.cuDevicePrimaryCtxRelease(device);
        }
    }
}
