package dev.kevo.cuda;

import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS;
import static jcuda.driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES;

import java.util.HashMap;
import java.util.Map;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/** A loaded cubin; kernels are looked up once and keep their attributes. */
public final class Module implements AutoCloseable {
    private final String name;
    private final CUmodule module;
    private final Map<String, Kernel> kernels = new HashMap<>();
    private final Map<String, Integer> dynamicSmemLimit = new HashMap<>();
    private boolean unloaded;

    Module(String name, CUmodule module) {
        this.name = name;
        this.module = module;
    }

    public String name() {
        return name;
    }

    public Kernel kernel(String kernelName) {
        return kernels.computeIfAbsent(kernelName, k -> {
            CUfunction function = new CUfunction();
            CudaError.check(JCudaDriver.cuModuleGetFunction(function, module, k), "cuModuleGetFunction(" + k + ")");
            return new Kernel(k, function, attribute(function, CU_FUNC_ATTRIBUTE_NUM_REGS),
                    attribute(function, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES),
                    attribute(function, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES),
                    attribute(function, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
        });
    }

    /** Raises the kernel's dynamic shared memory limit when a launch asks for more than the default 48 KB. */
    public void allowDynamicShared(Kernel kernel, int bytes) {
        int current = dynamicSmemLimit.getOrDefault(kernel.name(), 48 * 1024 - kernel.staticSharedBytes());
        if (bytes > current) {
            CudaError.check(JCudaDriver.cuFuncSetAttribute(kernel.function(),
                    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes), "cuFuncSetAttribute(" + kernel.name()
                    + ", max dynamic shared = " + bytes + ")");
            dynamicSmemLimit.put(kernel.name(), bytes);
        }
    }

    /** How many blocks of this launch shape one multiprocessor holds at once (0: not even one). */
    public int residentBlocksPerSm(Kernel kernel, int block, int dynamicSmem) {
        int[] blocks = new int[1];
        CudaError.check(JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel.function(), block,
                dynamicSmem), "cuOccupancyMaxActiveBlocksPerMultiprocessor(" + kernel.name() + ")");
        return blocks[0];
    }

    private static int attribute(CUfunction function, int attribute) {
        int[] value = new int[1];
        CudaError.check(JCudaDriver.cuFuncGetAttribute(value, attribute, function), "cuFuncGetAttribute");
        return value[0];
    }

    @Override
    public void close() {
        if (!unloaded) {
            unloaded = true;
            JCudaDriver.cuModuleUnload(module);
        }
    }
}
