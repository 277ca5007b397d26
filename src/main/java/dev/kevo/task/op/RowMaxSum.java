package dev.kevo.task.op;

/**
 * The softmax family's row statistic on the CPU, in float64: the row's maximum and the sum of {@code exp(x - max)},
 * -inf entries adding nothing, as row_max_sum.cu folds it on the GPU. A row with nothing finite has a maximum of
 * -inf and a sum of 0, from which both operators' formulas give NaN, as torch's do.
 */
record RowMaxSum(double max, double sum) {

    /** The statistic of {@code x[base .. base + cols)}. */
    static RowMaxSum of(float[] x, int base, int cols) {
        double max = Double.NEGATIVE_INFINITY;
        for (int c = 0; c < cols; c++) {
            max = Math.max(max, x[base + c]);
        }
        double sum = 0;
        for (int c = 0; c < cols; c++) {
            if (x[base + c] != Float.NEGATIVE_INFINITY) {
                sum += Math.exp(x[base + c] - max);
            }
        }
        return new RowMaxSum(max, sum);
    }
}
