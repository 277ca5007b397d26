package dev.kevo.cuda;

import dev.kevo.data.KernelResources;
import jcuda.driver.CUfunction;

/**
 * A loaded kernel and the resources the compiler gave it.
 *
 * @param localBytes per-thread local memory: non-zero means spills or a stack array
 */
public record Kernel(String name, CUfunction function, int registers, int localBytes, int staticSharedBytes,
                     int maxThreadsPerBlock) {

    /** What a result records of it. */
    public KernelResources resources() {
        return new KernelResources(name, registers, localBytes, staticSharedBytes);
    }
}
