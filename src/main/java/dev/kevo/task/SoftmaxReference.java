package dev.kevo.task;

/** The task's definition in float64 on the CPU: what kevo's GPU reference is tested against. */
public final class SoftmaxReference {

    private SoftmaxReference() {
    }

    public static double[] softmax(float[] x, int rows, int cols) {
        double[] y = new double[x.length];
        for (int r = 0; r < rows; r++) {
            int base = r * cols;
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < cols; c++) {
                max = Math.max(max, x[base + c]);
            }
            double sum = 0;
            for (int c = 0; c < cols; c++) {
                sum += Math.exp(x[base + c] - max);
            }
            for (int c = 0; c < cols; c++) {
                y[base + c] = Math.exp(x[base + c] - max) / sum;
            }
        }
        return y;
    }

    /** ||y - ref|| / ||ref||. */
    public static double relativeL2(float[] y, double[] ref) {
        double err = 0;
        double norm = 0;
        for (int i = 0; i < ref.length; i++) {
            double d = y[i] - ref[i];
            err += d * d;
            norm += ref[i] * ref[i];
        }
        return Math.sqrt(err / norm);
    }
}
