package dev.kevo.task.op;

/**
 * {@code dx = dy - exp(y) * sum_row(dy)}: log_softmax's backward, as {@code torch._log_softmax_backward_data} gives
 * it. Where y is -inf (a masked entry's log-probability) exp(y) is 0 and dx is exactly dy, torch's answer.
 */
final class LogSoftmaxBackward extends RowDotBackward {
    static final String ID = "log_softmax_backward";

    @Override
    public String id() {
        return ID;
    }

    @Override
    Operator forward() {
        return Operators.LOG_SOFTMAX;
    }

    @Override
    VendorBaseline vendorBackward() {
        return VendorBaseline.CUDNN_SOFTMAX_BACKWARD_LOG;
    }

    @Override
    double term(double y, double dy) {
        return dy;
    }

    @Override
    double weight(double y) {
        return Math.exp(y);
    }

    @Override
    double expected(double y, double dy, double dot) {
        return dy - Math.exp(y) * dot;
    }
}
