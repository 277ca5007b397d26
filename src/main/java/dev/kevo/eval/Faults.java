package dev.kevo.eval;

import dev.kevo.cuda.CudaError;
import dev.kevo.data.Verdict;

/** Turns a driver error raised by a candidate's launch into its verdict. */
final class Faults {
    private Faults() {
    }

    static Rejection reject(CudaError error, String where) {
        Verdict verdict = switch (error.kind()) {
            case ILLEGAL_ADDRESS -> Verdict.ILLEGAL_ADDRESS;
            case LAUNCH_OUT_OF_RESOURCES, INVALID_VALUE -> Verdict.RESOURCES_EXCEEDED;
            case LAUNCH_FAILED -> Verdict.LAUNCH_FAILED;
            case OTHER -> Verdict.KERNEL_FAULT;
        };
        return new Rejection(verdict, where + ": " + error.getMessage(), error.sticky());
    }
}
