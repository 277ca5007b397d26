package dev.kevo.task.op;

import dev.kevo.data.Dtype;
import java.util.SplittableRandom;

/**
 * A backward operator's inputs as training gives them, on the CPU: y the forward's float64 answer on x, rounded to x's
 * type, and dy drawn row by row from the {@link DyKind}s (row r of kind {@code r % 4}, so that every input case of x
 * meets every kind of gradient), rounded to x's type. What the harness's generator is to produce on the GPU.
 */
record BackwardInputs(float[] y, float[] dy) {

    /** How a row's incoming gradient is drawn. */
    enum DyKind {
        /** Standard normal everywhere, masked entries too (a loss may send anything there; dx must not care). */
        NORMAL,
        /** About 90% exact zeros, the rest normal: a gradient through a ReLU or a dropout. */
        SPARSE,
        /**
         * {@code p - onehot(label)} with p the row's probabilities (y, or exp(y)): the gradient of a squared error on
         * the probabilities against a one-hot target, whose dot product with p cancels (sum p^2 - p_label).
         */
        LOSS,
        /** {@code -onehot(label) / rows}: mean NLL's gradient, one non-zero a row, tiny on many rows. */
        NLL
    }

    static DyKind kind(int row) {
        return DyKind.values()[row % DyKind.values().length];
    }

    /** y and dy for {@code op} from the forward's input x, in x's type {@code xType}, under {@code seed}. */
    static BackwardInputs of(RowDotBackward op, Dtype xType, float[] x, int rows, int cols, long seed) {
        double[] forward = op.forward().reference(x, rows, cols);
        float[] y = new float[x.length];
        for (int i = 0; i < y.length; i++) {
            y[i] = round(xType, (float) forward[i]);
        }
        float[] dy = new float[x.length];
        for (int r = 0; r < rows; r++) {
            SplittableRandom random = new SplittableRandom(seed ^ (r + 1) * 0x9E3779B97F4A7C15L);
            int base = r * cols;
            int label = label(x, base, cols, random);
            for (int c = 0; c < cols; c++) {
                double p = op.weight(y[base + c]);
                double v = switch (kind(r)) {
                    case NORMAL -> random.nextGaussian();
                    case SPARSE -> random.nextDouble() < 0.9 ? 0 : random.nextGaussian();
                    case LOSS -> p - (c == label ? 1 : 0);
                    case NLL -> c == label ? -1.0 / rows : 0;
                };
                dy[base + c] = round(xType, (float) v);
            }
        }
        return new BackwardInputs(y, dy);
    }

    /**
     * A column of the row whose x is finite (its probability is not a masked 0): a loss's label is never masked. The
     * GPU's generator (harness_backward.cu's kv_label) takes the drawn column where finite, else a column its case
     * keeps finite; any finite column meets the specification.
     */
    private static int label(float[] x, int base, int cols, SplittableRandom random) {
        int start = random.nextInt(cols);
        for (int k = 0; k < cols; k++) {
            int c = (start + k) % cols;
            if (x[base + c] != Float.NEGATIVE_INFINITY) {
                return c;
            }
        }
        return start;
    }

    /** v rounded to nearest (even) in {@code type}, widened back to float. */
    static float round(Dtype type, float v) {
        return switch (type) {
            case FP32 -> v;
            case FP16 -> Float.float16ToFloat(Float.floatToFloat16(v));
            case BF16 -> {
                if (Float.isNaN(v)) {
                    yield v;
                }
                int bits = Float.floatToRawIntBits(v);
                bits += 0x7FFF + ((bits >>> 16) & 1);
                yield Float.intBitsToFloat(bits & 0xFFFF0000);
            }
        };
    }
}
