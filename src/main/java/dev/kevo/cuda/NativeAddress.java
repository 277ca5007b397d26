package dev.kevo.cuda;

import jcuda.NativePointerObject;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.runtime.cudaStream_t;

/**
 * The raw addresses behind JCuda's handles, for libraries kevo calls through java.lang.foreign (cuDNN, and the
 * driver's own cuLaunchKernelEx, which JCuda does not bind): JCuda
 * keeps them in protected accessors, which a subclass may read on its own instances, so each handle is copied
 * into one.
 */
final class NativeAddress {
    private NativeAddress() {
    }

    /** The device address a pointer stands for, its byte offset included. */
    static long of(CUdeviceptr pointer) {
        return new DevicePointer(pointer).address();
    }

    /** The {@code CUstream}, which is also the runtime API's {@code cudaStream_t}. */
    static long of(CUstream stream) {
        return new Stream(stream).address();
    }

    /** The {@code CUfunction} handle. */
    static long of(CUfunction function) {
        return new Handle(function).address();
    }

    private static final class Handle extends NativePointerObject {
        Handle(NativePointerObject handle) {
            super(handle);
        }

        long address() {
            return getNativePointer();
        }
    }

    private static final class DevicePointer extends CUdeviceptr {
        DevicePointer(CUdeviceptr pointer) {
            super(pointer, 0);
        }

        long address() {
            return getNativePointer() + getByteOffset();
        }
    }

    private static final class Stream extends CUstream {
        Stream(CUstream stream) {
            super(new cudaStream_t(stream));
        }

        long address() {
            return getNativePointer();
        }
    }
}
