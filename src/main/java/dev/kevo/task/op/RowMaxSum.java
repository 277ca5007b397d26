package dev.kevo.task.op;

/**
 * The softmax family's row statistic on the CPU, in float64: the row's maximum and the sum of {@code exp(x - max)},
 * -inf entries adding nothing, as row_max_sum.cu folds it on the GPU. A row with nothing finite has a maximum of
 * -inf and a sum of 0, from which both operators' formulas give NaN, as torch's do.
 */
record RowMaxSum(double max, double sum) {

    /** An operator's output element from its input element and its row's statistic. */
    interface Element {
        double of(double x, RowMaxSum row);
    }

    /** Every row of a row-major {@code rows x cols} matrix, each element mapped with its row's statistic. */
    static double[] rowwise(float[] x, int rows, int cols, Element element) {
        double[] y = new double[x.length];
        for (int r = 0; r < rows; r++) {
            int base = r * cols;
            RowMaxSum row = of(x, base, cols);
            for (int c = 0; c < cols; c++) {
                y[base + c] = element.of(x[base + c], row);
            }
        }
        return y;
    }

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
