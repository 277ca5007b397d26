package dev.kevo.task.op;

/** A vendor library's implementation of an operator, which the evaluator can run as the baseline. */
public enum VendorBaseline {
    /** cuDNN's {@code cudnnSoftmaxForward} with {@code CUDNN_SOFTMAX_ACCURATE}: the row maximum subtracted. */
    CUDNN_SOFTMAX_ACCURATE,
    /** cuDNN's {@code cudnnSoftmaxForward} with {@code CUDNN_SOFTMAX_LOG}: log-probabilities. */
    CUDNN_SOFTMAX_LOG,
    /** cuDNN's {@code cudnnSoftmaxBackward} with {@code CUDNN_SOFTMAX_ACCURATE}: softmax's gradient from y and dy. */
    CUDNN_SOFTMAX_BACKWARD_ACCURATE,
    /** cuDNN's {@code cudnnSoftmaxBackward} with {@code CUDNN_SOFTMAX_LOG}: log_softmax's gradient from y and dy. */
    CUDNN_SOFTMAX_BACKWARD_LOG
}
