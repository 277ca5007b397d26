package dev.kevo.task.op;

/**
 * The backward family's row statistic on the CPU, in float64: one dot product, {@code sum} of a row's terms (y * dy for
 * softmax's backward, dy for log_softmax's), and {@code absSum}, the sum of their magnitudes, which is what float32
 * rounding of that dot product is proportional to (the tolerance's scale: {@link RowDotBackward#scale}). Every term is
 * a product of two floats or a float, exact in a double, so the only rounding is the double sum's (about cols 2^-53
 * of absSum), a million times below any float32 kernel's. row_dot.cu folds the same pair on the GPU.
 */
record RowDot(double sum, double absSum) {

    /** An element's term of the dot product from its y and dy. */
    interface Term {
        double of(double y, double dy);
    }

    /** The statistic of {@code y, dy [base .. base + cols)}. */
    static RowDot of(float[] y, float[] dy, int base, int cols, Term term) {
        double sum = 0;
        double absSum = 0;
        for (int c = 0; c < cols; c++) {
            double t = term.of(y[base + c], dy[base + c]);
            sum += t;
            absSum += Math.abs(t);
        }
        return new RowDot(sum, absSum);
    }
}
