package dev.kevo.eval;

import dev.kevo.cuda.Cudnn;
import dev.kevo.data.BaselineChoice;
import dev.kevo.task.KernelFile;

/**
 * What an evaluator measures speedups against: a kernel file (checked like a candidate once per device, since
 * kevo wrote it) or cuDNN's softmax (checked against the same reference but never rejected: its error is recorded
 * per shape, so nobody mistakes the vendor for the ground truth). Either is timed interleaved with the candidate
 * in the same rounds, on the same rotated inputs, behind the same L2 flush.
 */
public sealed interface Baseline {

    /** The name results carry. */
    String name();

    record File(KernelFile file) implements Baseline {
        @Override
        public String name() {
            return file.name();
        }
    }

    record Vendor(Cudnn cudnn) implements Baseline {
        @Override
        public String name() {
            return BaselineChoice.CUDNN;
        }
    }
}
