package dev.kevo.task.op;

import dev.kevo.data.Dtype;
import dev.kevo.data.Tolerance;
import java.util.List;
import java.util.Optional;

/**
 * The backward of a softmax-family forward: from the forward's output {@code y} and the incoming gradient {@code dy},
 * the gradient {@code dx}, whose row statistic is one dot product ({@link RowDot}), not (max, sum). Softmax's and
 * log_softmax's backward differ only in the dot product's term, the weight {@code w(y)} that scales it back onto an
 * element ({@code y}, or {@code exp(y)}) and their texts; everything else (tensors, floor, inputs, tolerance) is
 * shared here.
 *
 * <p>The inputs are consistent, as training gives them: x is generated as the forward's is (kevo's ten cases), y is the
 * forward's float64 answer rounded to x's type, and dy is drawn per row from the distributions of {@link DyKind}
 * ({@link BackwardInputs}). Both inputs are held bit for bit; dx is judged.
 *
 * <p>Element types: y and dy in x's type, dx in y's. bf16-fp32 is then bf16 y and dy, fp32 dx, as autocast's
 * backward of a bf16 forward whose gradient is accumulated in float32 would have it; the floor counts those bytes.
 */
abstract class RowDotBackward implements Operator {
    private static final List<Tensor> TENSORS = List.of(
            new Tensor("y", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("dy", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("dx", Tensor.Role.OUTPUT, Tensor.Element.Y));

    /**
     * Provisional (docs/measurement.md, "softmax_backward and log_softmax_backward"): per element
     * {@code |dx - ref| <= 1e-4 scale}, where the element's scale ({@link #scale}) is what float32 rounding of the dot
     * product and of the element's own arithmetic is proportional to, plus dx's ulp and what flushing subnormals may
     * cost (harness_backward.cu's kv_flushed); per case {@code ||dx - ref|| <= 1e-4 ||scale||}.
     * {@code absolute} is a multiple of the scale here, not of 1; {@code relative} adds nothing (0): the reference
     * cancels to near 0 on dominated rows, where a bound relative to it would demand more than float32 holds.
     */
    static final Tolerance TOLERANCE = new Tolerance(1e-4, 1e-4, 0);

    /** The forward whose output y is: what generates the inputs consistently. */
    abstract Operator forward();

    /** An element's term of the row's dot product. */
    abstract double term(double y, double dy);

    /** What scales the row's dot product back onto an element: y (softmax), exp(y) (log_softmax). */
    abstract double weight(double y);

    /** The expected dx of an element from y, dy and the row's dot product. */
    abstract double expected(double y, double dy, double dot);

    @Override
    public final List<Tensor> tensors() {
        return TENSORS;
    }

    @Override
    public final Tolerance tolerance() {
        return TOLERANCE;
    }

    /** Two row inputs, y then dy ({@link #rowInputs}), not one x. */
    @Override
    public final Tensor input() {
        throw new IllegalStateException(id() + " reads two row inputs (y, dy), not one x");
    }

    /** Its forward: y is that operator's output, which the harness generates from the forward's input x. */
    @Override
    public final Optional<Operator> gradientOf() {
        return Optional.of(forward());
    }

    /**
     * The operator on the inputs training gives it: y and dy ({@link BackwardInputs}) from a forward input x, as the
     * harness derives them (float32, dy seed 0).
     */
    @Override
    public final double[] reference(float[] x, int rows, int cols) {
        BackwardInputs in = BackwardInputs.of(this, Dtype.FP32, x, rows, cols, 0);
        return reference(in.y(), in.dy(), rows, cols);
    }

    /** dx in float64 from y and dy as stored (widened to float), row by row. */
    final double[] reference(float[] y, float[] dy, int rows, int cols) {
        double[] dx = new double[y.length];
        for (int r = 0; r < rows; r++) {
            int base = r * cols;
            RowDot dot = RowDot.of(y, dy, base, cols, this::term);
            for (int c = 0; c < cols; c++) {
                dx[base + c] = expected(y[base + c], dy[base + c], dot.sum());
            }
        }
        return dx;
    }

    /**
     * Each element's scale for the tolerance: {@code |dy| + w(y) sum|term|}. A float32 kernel's error on dx is its
     * dot product's rounding (at most a few units of float32 times the sum of the terms' magnitudes, however the sum
     * is ordered), carried onto the element by w(y), plus a few roundings of the element's own arithmetic, each
     * relative to |dy| or to w(y) |dot| <= w(y) sum|term|. Relative to dy's scale, not to dx: dx cancels to near 0
     * wherever y is one-hot, and its error there is still dy's rounding.
     */
    final double[] scale(float[] y, float[] dy, int rows, int cols) {
        double[] scale = new double[y.length];
        for (int r = 0; r < rows; r++) {
            int base = r * cols;
            RowDot dot = RowDot.of(y, dy, base, cols, this::term);
            for (int c = 0; c < cols; c++) {
                scale[base + c] = Math.abs(dy[base + c]) + weight(y[base + c]) * dot.absSum();
            }
        }
        return scale;
    }

    /** cuDNN's cudnnSoftmaxBackward, with the algorithm of the forward's cudnnSoftmaxForward. */
    @Override
    public final Optional<VendorBaseline> vendor() {
        return Optional.of(vendorBackward());
    }

    /** cudnnSoftmaxBackward with ACCURATE (softmax's) or LOG (log_softmax's). */
    abstract VendorBaseline vendorBackward();

    @Override
    public final String ownBaseline() {
        return id() + "_block";
    }

    @Override
    public final String referenceSource() {
        return OperatorText.sources(RowDotBackward.class, "row_dot.cu", id() + ".cu");
    }

    @Override
    public final String taskText() {
        return OperatorText.resource(RowDotBackward.class, id() + ".md");
    }
}
