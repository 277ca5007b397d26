package dev.kevo.cuda;

import dev.kevo.data.KernelResources;
import jcuda.driver.CUfunction;

/** A loaded kernel and the resources the compiler gave it; its driver handle stays in this package. */
public final class Kernel {
    private final String name;
    private final CUfunction function;
    private final int registers;
    private final int localBytes;
    private final int staticSharedBytes;
    private final int maxThreadsPerBlock;

    Kernel(String name, CUfunction function, int registers, int localBytes, int staticSharedBytes,
           int maxThreadsPerBlock) {
        this.name = name;
        this.function = function;
        this.registers = registers;
        this.localBytes = localBytes;
        this.staticSharedBytes = staticSharedBytes;
        this.maxThreadsPerBlock = maxThreadsPerBlock;
    }

    public String name() {
        return name;
    }

    CUfunction function() {
        return function;
    }

    public int registers() {
        return registers;
    }

    /** Per-thread local memory: non-zero means spills or a stack array. */
    public int localBytes() {
        return localBytes;
    }

    public int staticSharedBytes() {
        return staticSharedBytes;
    }

    /** What a result records of it. */
    public KernelResources resources() {
        return new KernelResources(name, registers, localBytes, staticSharedBytes);
    }

    public int maxThreadsPerBlock() {
        return maxThreadsPerBlock;
    }
}
