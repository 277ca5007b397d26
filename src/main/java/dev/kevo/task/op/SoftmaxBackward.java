package dev.kevo.task.op;

/**
 * {@code dx = y * (dy - sum_row(y * dy))}: softmax's backward, as {@code torch._softmax_backward_data} gives it. Where y
 * is 0 (a masked entry's probability, or one that underflowed) dx is exactly 0, whatever the row's dot product.
 */
final class SoftmaxBackward extends RowDotBackward {
    static final String ID = "softmax_backward";

    @Override
    public String id() {
        return ID;
    }

    @Override
    Operator forward() {
        return Operators.SOFTMAX;
    }

    @Override
    VendorBaseline vendorBackward() {
        return VendorBaseline.CUDNN_SOFTMAX_BACKWARD_ACCURATE;
    }

    @Override
    double term(double y, double dy) {
        return y * dy;
    }

    @Override
    double weight(double y) {
        return y;
    }

    @Override
    double expected(double y, double dy, double dot) {
        return y * (dy - dot);
    }
}
