package dev.kevo.task.op;

/** A vendor library's implementation of an operator, which the evaluator can run as the baseline. */
public enum VendorBaseline {
    /** cuDNN's {@code cudnnSoftmaxForward} with {@code CUDNN_SOFTMAX_ACCURATE}: the row maximum subtracted. */
    CUDNN_SOFTMAX_ACCURATE,
    /** cuDNN's {@code cudnnSoftmaxForward} with {@code CUDNN_SOFTMAX_LOG}: log-probabilities. */
    CUDNN_SOFTMAX_LOG
}
