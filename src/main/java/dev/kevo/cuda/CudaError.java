package dev.kevo.cuda;

import jcuda.driver.CUresult;

/**
 * A CUDA driver call that failed. Faults inside a kernel (illegal address, trap, misaligned access) are
 * sticky: the context is unusable afterwards and only a new process recovers, which is why the evaluator
 * needs to know which is which.
 */
public final class CudaError extends RuntimeException {
    private final int code;
    private final String call;

    public CudaError(int code, String call) {
        super(call + ": " + CUresult.stringFor(code));
        this.code = code;
        this.call = call;
    }

    public int code() {
        return code;
    }

    public String call() {
        return call;
    }

    /** The driver's results a kernel's fault is told apart by; every other result is {@link #OTHER}. */
    public enum Kind {
        ILLEGAL_ADDRESS, LAUNCH_OUT_OF_RESOURCES, INVALID_VALUE, LAUNCH_FAILED, OTHER
    }

    public Kind kind() {
        return switch (code) {
            case CUresult.CUDA_ERROR_ILLEGAL_ADDRESS -> Kind.ILLEGAL_ADDRESS;
            case CUresult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES -> Kind.LAUNCH_OUT_OF_RESOURCES;
            case CUresult.CUDA_ERROR_INVALID_VALUE -> Kind.INVALID_VALUE;
            case CUresult.CUDA_ERROR_LAUNCH_FAILED -> Kind.LAUNCH_FAILED;
            default -> Kind.OTHER;
        };
    }

    /** True for faults that leave the context unusable. */
    public boolean sticky() {
        return switch (code) {
            case CUresult.CUDA_ERROR_ILLEGAL_ADDRESS, CUresult.CUDA_ERROR_LAUNCH_FAILED,
                 CUresult.CUDA_ERROR_ASSERT, CUresult.CUDA_ERROR_HARDWARE_STACK_ERROR,
                 CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION, CUresult.CUDA_ERROR_MISALIGNED_ADDRESS,
                 CUresult.CUDA_ERROR_INVALID_ADDRESS_SPACE, CUresult.CUDA_ERROR_INVALID_PC,
                 CUresult.CUDA_ERROR_LAUNCH_TIMEOUT, CUresult.CUDA_ERROR_ECC_UNCORRECTABLE -> true;
            default -> false;
        };
    }

    static void check(int code, String call) {
        if (code != CUresult.CUDA_SUCCESS) {
            throw new CudaError(code, call);
        }
    }
}
