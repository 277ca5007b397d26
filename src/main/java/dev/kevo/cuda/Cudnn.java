package dev.kevo.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.kevo.KevoException;
import dev.kevo.data.Dtype;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * cuDNN's legacy softmax through java.lang.foreign: {@code cudnnSoftmaxForward} (and {@code cudnnSoftmaxBackward}, the
 * backward operators' intended baseline) with {@code CUDNN_SOFTMAX_ACCURATE}
 * (the row maximum subtracted) and {@code CUDNN_SOFTMAX_MODE_CHANNEL} over an NCHW float tensor of rows x cols x 1
 * x 1, which is kevo's row-major rows x cols. The library alone (its version) needs no GPU; {@link #softmax(Gpu)}
 * runs on the GPU's context and stream.
 */
public final class Cudnn {
    /** cudnnTensorFormat_t, cudnnDataType_t, cudnnSoftmaxAlgorithm_t and cudnnSoftmaxMode_t, from cudnn_graph.h / cudnn_ops.h. */
    static final int CUDNN_TENSOR_NCHW = 0;
    static final int CUDNN_DATA_FLOAT = 0;
    static final int CUDNN_DATA_HALF = 2;
    static final int CUDNN_DATA_BFLOAT16 = 9;
    static final int CUDNN_SOFTMAX_ACCURATE = 1;
    static final int CUDNN_SOFTMAX_LOG = 2;
    static final int CUDNN_SOFTMAX_MODE_CHANNEL = 1;
    static final int CUDNN_STATUS_SUCCESS = 0;

    private final String location;
    private final long rawVersion;
    private final MethodHandle getErrorString;
    private final MethodHandle create;
    private final MethodHandle destroy;
    private final MethodHandle setStream;
    private final MethodHandle createTensor;
    private final MethodHandle setTensor4d;
    private final MethodHandle destroyTensor;
    private final MethodHandle softmaxForward;
    private final MethodHandle softmaxBackward;

    private Cudnn(CudnnLocator.Found found) {
        this.location = found.location();
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = found.lookup();
        MethodHandle getVersion = handle(linker, lib, "cudnnGetVersion", FunctionDescriptor.of(JAVA_LONG));
        getErrorString = handle(linker, lib, "cudnnGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        create = handle(linker, lib, "cudnnCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        destroy = handle(linker, lib, "cudnnDestroy", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        setStream = handle(linker, lib, "cudnnSetStream", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        createTensor = handle(linker, lib, "cudnnCreateTensorDescriptor", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        setTensor4d = handle(linker, lib, "cudnnSetTensor4dDescriptor", FunctionDescriptor.of(JAVA_INT, ADDRESS,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
        destroyTensor = handle(linker, lib, "cudnnDestroyTensorDescriptor", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        softmaxForward = handle(linker, lib, "cudnnSoftmaxForward", FunctionDescriptor.of(JAVA_INT, ADDRESS,
                JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        // handle, algorithm, mode, alpha, (y's descriptor, y), (dy's, dy), beta, (dx's, dx)
        softmaxBackward = handle(linker, lib, "cudnnSoftmaxBackward", FunctionDescriptor.of(JAVA_INT, ADDRESS,
                JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        try {
            this.rawVersion = (long) getVersion.invokeExact();
        } catch (Throwable t) {
            throw NativeLibraries.rethrow(t);
        }
    }

    /** Loads cuDNN from $KEVO_CUDNN or the usual places (see {@link CudnnLocator}). */
    public static Cudnn load(Map<String, String> env) {
        return load(env, Optional.empty());
    }

    /** Loads $KEVO_CUDNN, else {@code library} when given (what a run recorded or a supervisor resolved). */
    public static Cudnn load(Map<String, String> env, Optional<String> library) {
        return new Cudnn(new CudnnLocator(env).load(library, Arena.global()));
    }

    /** e.g. {@code 9.14.0}. */
    public String version() {
        return versionOf(rawVersion);
    }

    /** The path or soname it was loaded by. */
    public String location() {
        return location;
    }

    /**
     * cudnnGetVersion's number as major.minor.patch: cuDNN 9 counts major * 10000 + minor * 100 + patch, cuDNN 8 and
     * older major * 1000 + minor * 100 + patch.
     */
    static String versionOf(long raw) {
        long major = raw >= 90000 ? raw / 10000 : raw / 1000;
        long rest = raw >= 90000 ? raw % 10000 : raw % 1000;
        return major + "." + rest / 100 + "." + rest % 100;
    }

    /** The one line a failed call becomes: the library, the call, where, and cuDNN's own status string. */
    static String failure(String location, String call, String where, int status, String statusString) {
        return "cuDNN " + location + ": " + call + (where.isEmpty() ? "" : " (" + where + ")") + " failed: "
                + statusString + " (status " + status + ")";
    }

    /**
     * A cuDNN handle on the GPU's context (current on this thread: kevo uses the device's primary context, which
     * is the one the CUDA runtime inside cuDNN uses) whose work goes on the GPU's stream, so it is timed and
     * synchronised exactly like kevo's own launches. The runtime takes its device from that current context, so
     * {@code --device N} needs no cudaSetDevice.
     */
    public Softmax softmax(Gpu gpu) {
        return softmax(gpu, Dtype.FP32);
    }

    /** As {@link #softmax(Gpu)}, with x and y of {@code type} (cuDNN's softmax takes one type for both). */
    public Softmax softmax(Gpu gpu, Dtype type) {
        return softmax(gpu, type, Algorithm.ACCURATE);
    }

    /**
     * cudnnSoftmaxAlgorithm_t: what {@code cudnnSoftmaxForward} computes of each row, and whose gradient
     * {@code cudnnSoftmaxBackward} takes.
     */
    public enum Algorithm {
        /** exp(x - max) / sum; backward, y * (dy - sum(y * dy)). */
        ACCURATE(CUDNN_SOFTMAX_ACCURATE),
        /** x - max - log(sum exp(x - max)); backward, dy - exp(y) * sum(dy). */
        LOG(CUDNN_SOFTMAX_LOG);

        private final int value;

        Algorithm(int value) {
            this.value = value;
        }
    }

    /** As {@link #softmax(Gpu, Dtype)}, computing {@code algorithm}'s function of each row. */
    public Softmax softmax(Gpu gpu, Dtype type, Algorithm algorithm) {
        return new Softmax(gpu.streamAddress(), algorithm.value, switch (type) {
            case FP32 -> CUDNN_DATA_FLOAT;
            case BF16 -> CUDNN_DATA_BFLOAT16;
            case FP16 -> CUDNN_DATA_HALF;
        });
    }

    /** One handle and a tensor descriptor per prepared shape. Used from one thread. */
    public final class Softmax implements AutoCloseable {
        private final Arena arena = Arena.ofShared();
        private final MemorySegment handle;
        private final MemorySegment alpha;
        private final MemorySegment beta;
        private final List<MemorySegment> descriptors = new java.util.ArrayList<>();
        private final int dataType;
        private final int algorithm;
        private boolean closed;

        private Softmax(long stream, int algorithm, int dataType) {
            this.dataType = dataType;
            this.algorithm = algorithm;
            MemorySegment out = arena.allocate(ADDRESS);
            call(() -> (int) create.invokeExact(out), "cudnnCreate", "");
            handle = out.get(ADDRESS, 0);
            call(() -> (int) setStream.invokeExact(handle, MemorySegment.ofAddress(stream)), "cudnnSetStream", "");
            alpha = arena.allocateFrom(JAVA_FLOAT, 1f);
            beta = arena.allocateFrom(JAVA_FLOAT, 0f);
        }

        /** A descriptor for rows x cols (as N x C x 1 x 1); its index is what {@link #run} takes. */
        public int prepare(int rows, int cols) {
            MemorySegment out = arena.allocate(ADDRESS);
            String where = rows + "x" + cols;
            call(() -> (int) createTensor.invokeExact(out), "cudnnCreateTensorDescriptor", where);
            MemorySegment descriptor = out.get(ADDRESS, 0);
            descriptors.add(descriptor);
            call(() -> (int) setTensor4d.invokeExact(descriptor, CUDNN_TENSOR_NCHW, dataType, rows, cols, 1, 1),
                    "cudnnSetTensor4dDescriptor", where);
            return descriptors.size() - 1;
        }

        /** y = the algorithm's softmax of x over each row, queued on the GPU's stream. */
        public void run(int prepared, DevicePointer x, DevicePointer y, String where) {
            MemorySegment descriptor = descriptors.get(prepared);
            MemorySegment in = MemorySegment.ofAddress(NativeAddress.of(x.handle()));
            MemorySegment outY = MemorySegment.ofAddress(NativeAddress.of(y.handle()));
            call(() -> (int) softmaxForward.invokeExact(handle, algorithm, CUDNN_SOFTMAX_MODE_CHANNEL,
                    alpha, descriptor, in, beta, descriptor, outY), "cudnnSoftmaxForward", where);
        }

        /**
         * dx = the gradient of the algorithm's softmax over each row, from its output y and the incoming gradient dy,
         * queued on the GPU's stream: softmax_backward's (ACCURATE) and log_softmax_backward's (LOG) vendor baseline.
         * The three tensors share the prepared shape's descriptor and type.
         */
        public void runBackward(int prepared, DevicePointer y, DevicePointer dy, DevicePointer dx, String where) {
            MemorySegment descriptor = descriptors.get(prepared);
            MemorySegment inY = MemorySegment.ofAddress(NativeAddress.of(y.handle()));
            MemorySegment inDy = MemorySegment.ofAddress(NativeAddress.of(dy.handle()));
            MemorySegment outDx = MemorySegment.ofAddress(NativeAddress.of(dx.handle()));
            call(() -> (int) softmaxBackward.invokeExact(handle, algorithm, CUDNN_SOFTMAX_MODE_CHANNEL,
                    alpha, descriptor, inY, descriptor, inDy, beta, descriptor, outDx), "cudnnSoftmaxBackward", where);
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                try {
                    for (MemorySegment d : descriptors) {
                        int ignored = (int) destroyTensor.invokeExact(d);
                    }
                    int ignored = (int) destroy.invokeExact(handle);
                } catch (Throwable t) {
                    // Closing at the end of a worker: nothing left to protect.
                } finally {
                    arena.close();
                }
            }
        }
    }

    private interface Call {
        int invoke() throws Throwable;
    }

    private void call(Call call, String name, String where) {
        int status;
        try {
            status = call.invoke();
        } catch (Throwable t) {
            throw NativeLibraries.rethrow(t);
        }
        if (status != CUDNN_STATUS_SUCCESS) {
            throw KevoException.environment(failure(location, name, where, status, errorString(status)));
        }
    }

    private String errorString(int status) {
        try {
            MemorySegment s = (MemorySegment) getErrorString.invokeExact(status);
            return s.equals(MemorySegment.NULL) ? "status " + status : s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "status " + status;
        }
    }

    private MethodHandle handle(Linker linker, SymbolLookup lib, String symbol, FunctionDescriptor descriptor) {
        return NativeLibraries.downcall(linker, lib, symbol, descriptor, "cuDNN " + location, " (not a cuDNN library?)");
    }
}
