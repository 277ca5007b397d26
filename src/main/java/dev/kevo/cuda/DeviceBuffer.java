package dev.kevo.cuda;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;

/** A device allocation, freed on close. */
public final class DeviceBuffer implements AutoCloseable {
    private final DevicePointer pointer;
    private final long bytes;
    private boolean freed;

    DeviceBuffer(CUdeviceptr pointer, long bytes) {
        this.pointer = new DevicePointer(pointer);
        this.bytes = bytes;
    }

    public DevicePointer pointer() {
        return pointer;
    }

    /** A pointer {@code offset} bytes into the buffer. */
    public DevicePointer at(long offset) {
        if (offset < 0 || offset > bytes) {
            throw new IndexOutOfBoundsException("offset " + offset + " of " + bytes);
        }
        return pointer.withByteOffset(offset);
    }

    public long bytes() {
        return bytes;
    }

    @Override
    public void close() {
        if (!freed) {
            freed = true;
            JCudaDriver.cuMemFree(pointer.handle());
        }
    }
}
