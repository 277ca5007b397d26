package dev.kevo.task.op;

/**
 * cross_entropy in float64 on the CPU, forward and backward in one, as torch defines {@code F.cross_entropy(x, labels,
 * ignore_index=-100, reduction=...)} and its gradient: the specification the evaluator's GPU reference of the fused
 * operator is to be held to, as {@link BackwardInputs} was for the backward operators before their harness
 * (docs/operators.md, "cross_entropy"). Rows are tokens, columns the vocabulary.
 *
 * <ul>
 *   <li>A row is live when its label is not {@link #IGNORE_INDEX}; {@code n} counts the live rows.</li>
 *   <li>A live row's loss is {@code lse - x[label]}, lse its log-sum-exp ({@code -inf} entries, masked, add nothing),
 *       taken as {@code (max - x[label]) + log(sum)}, and a probability as {@code exp((x - max) - log(sum))}: lse
 *       itself would absorb log(sum) where the row's maximum is huge (a row masked throughout with float32's lowest
 *       value, Hugging Face's mask, whose loss is log(cols)); the loss is their sum, divided by {@code n} for
 *       {@link Reduction#MEAN}: with no live row 0 / 0, NaN, as torch gives.</li>
 *   <li>{@code dx = g (softmax(x) - onehot(label))}, divided by {@code n} for the mean; an ignored row's dx is exactly
 *       0, and so is every dx when no row is live.</li>
 * </ul>
 */
public final class CrossEntropyReference {

    /** The label of a row that counts for nothing, torch's default {@code ignore_index}. */
    public static final long IGNORE_INDEX = -100;

    /** How the rows' losses are reduced: a plan variable of the fused operator (mean 1, sum 0). */
    public enum Reduction { MEAN, SUM }

    /**
     * @param loss      the reduced loss
     * @param dx        the gradient of {@code g * loss} by x, row-major
     * @param live      how many rows were live ({@code n})
     * @param lossScale what float32 arithmetic's error in the loss is proportional to: the sum over live rows of
     *                  {@code |max - x[label]| + log(sum) + 1} (the 1: float32's log of a sum of at least 1 errs by
     *                  about its rounding unit absolutely, however small the log), divided by {@code n} for the mean; what the loss's
     *                  tolerance is relative to
     */
    public record Result(double loss, double[] dx, long live, double lossScale) {
    }

    private CrossEntropyReference() {
    }

    /**
     * The loss and dx of row-major {@code rows x cols} logits under {@code labels} (one a row, in {@code [0, cols)}
     * or {@link #IGNORE_INDEX}), with incoming gradient {@code g}.
     *
     * @throws IllegalArgumentException a label outside {@code [0, cols)} that is not the ignore index, or one at a
     *                                  masked ({@code -inf}) logit, where torch's answer is an infinite loss
     */
    public static Result of(float[] x, long[] labels, int rows, int cols, Reduction reduction, double g) {
        if (x.length != (long) rows * cols || labels.length != rows) {
            throw new IllegalArgumentException(x.length + " logits and " + labels.length + " labels for " + rows + "x"
                    + cols);
        }
        double[] max = new double[rows];
        double[] logSum = new double[rows];
        long live = 0;
        for (int r = 0; r < rows; r++) {
            long label = labels[r];
            if (label == IGNORE_INDEX) {
                continue;
            }
            if (label < 0 || label >= cols || x[r * cols + (int) label] == Float.NEGATIVE_INFINITY) {
                throw new IllegalArgumentException("row " + r + ": label " + label + " is neither a finite logit's "
                        + "column in [0, " + cols + ") nor " + IGNORE_INDEX);
            }
            RowMaxSum s = RowMaxSum.of(x, r * cols, cols);
            max[r] = s.max();
            logSum[r] = Math.log(s.sum());
            live++;
        }
        double per = reduction == Reduction.MEAN ? 1.0 / live : 1.0;
        double total = 0;
        double scale = 0;
        double[] dx = new double[x.length];
        for (int r = 0; r < rows; r++) {
            if (labels[r] == IGNORE_INDEX) {
                continue;
            }
            int base = r * cols;
            int label = (int) labels[r];
            total += (max[r] - x[base + label]) + logSum[r];
            scale += Math.abs(max[r] - x[base + label]) + logSum[r] + 1.0;
            for (int c = 0; c < cols; c++) {
                double p = Math.exp((x[base + c] - max[r]) - logSum[r]);  // a masked logit's p is 0
                dx[base + c] = g * per * (c == label ? p - 1.0 : p);
            }
        }
        // mean over no live row: 0 / 0 = NaN, as torch's; its scale, 0 / 0 too, is 0: nothing to bound
        return new Result(reduction == Reduction.MEAN ? total / live : total, dx, live,
                live == 0 ? 0.0 : scale * (reduction == Reduction.MEAN ? per : 1.0));
    }
}
