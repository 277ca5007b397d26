package dev.kevo.cuda;

import jcuda.driver.CUdeviceptr;

/**
 * An address in device memory: where a buffer starts, or a place inside it. The JCuda handle behind it stays in this
 * package, so code outside hands pointers to {@link Gpu} and never to the driver.
 */
public final class DevicePointer {
    private final CUdeviceptr handle;

    DevicePointer(CUdeviceptr handle) {
        this.handle = handle;
    }

    /**
     * A pointer to no allocation, which no kernel may be handed: for code that only passes pointers along (and
     * tests of it), where what matters is which pointer went where.
     */
    public static DevicePointer unallocated() {
        return new DevicePointer(new CUdeviceptr());
    }

    /**
     * The null pointer, which a kernel may be handed where a tensor is absent (as a torch op gets nullptr for an
     * absent optional tensor): a kernel that reads through it faults.
     */
    public static DevicePointer none() {
        return new DevicePointer(new CUdeviceptr());
    }

    /** The address {@code offset} bytes further on. */
    public DevicePointer withByteOffset(long offset) {
        return new DevicePointer(handle.withByteOffset(offset));
    }

    CUdeviceptr handle() {
        return handle;
    }
}
