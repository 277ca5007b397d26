package dev.kevo.eval;

import dev.kevo.cuda.CudaError;
import dev.kevo.data.Verdict;
import jcuda.driver.CUresult;

/** Turns a driver error raised by a candidate's launch into its verdict. */
final class Faults {
    private Faults() {
    }

    static Rejection reject(CudaError error, String where) {
        Verdict verdict = switch (error.code()) {
            case CUresult.CUDA_ERROR_ILLEGAL_ADDRESS -> Verdict.ILLEGAL_ADDRESS;
            case CUresult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUresult.CUDA_ERROR_INVALID_VALUE -> Verdict.RESOURCES_EXCEEDED;
            case CUresult.CUDA_ERROR_LAUNCH_FAILED -> Verdict.LAUNCH_FAILED;
            default -> Verdict.KERNEL_FAULT;
        };
        return new Rejection(verdict, where + ": " + error.getMessage(), error.sticky());
    }
}
