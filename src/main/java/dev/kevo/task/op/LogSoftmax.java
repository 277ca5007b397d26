package dev.kevo.task.op;

import dev.kevo.data.Tolerance;
import java.util.List;
import java.util.Optional;

/**
 * {@code y = x - max - log(sum(exp(x - max)))} over each row of {@code x}: log-probabilities, what a loss takes. The
 * same tensors, inputs and row statistic as softmax ({@link RowMaxSum}, row_max_sum.cu); only an element's output
 * and the tolerance differ. A masked entry (-inf) gives -inf, which the harness holds to exactly; a row masked with
 * the lowest finite value throughout gives -log(cols) everywhere.
 */
final class LogSoftmax implements Operator {
    private static final List<Tensor> TENSORS = List.of(new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y));

    /**
     * Derived from softmax's calibration (docs/measurement.md, "Tolerances, and why"): log-probabilities need an
     * absolute bound where they are near 0 and a relative one where they are large, so softmax's relative 1e-4 on a
     * probability becomes 1e-4 absolute on its log, a relative 1e-5 covers float32's rounding of x - max at magnitudes
     * up to thousands, and a case's relative L2 is held to 1e-5. torch's own log_softmax in every dtype and kevo's
     * honest kernels pass it with a margin on the H100 (the same section).
     */
    static final Tolerance TOLERANCE = new Tolerance(1e-5, 1e-4, 1e-5);

    @Override
    public String id() {
        return "log_softmax";
    }

    @Override
    public List<Tensor> tensors() {
        return TENSORS;
    }

    @Override
    public Tolerance tolerance() {
        return TOLERANCE;
    }

    @Override
    public String referenceSource() {
        return OperatorText.sources(LogSoftmax.class, "row_max_sum.cu", "log_softmax.cu");
    }

    /** As the GPU computes it: {@code (x - max) - log(sum)}, so an entry at the maximum is exactly {@code -log(sum)}. */
    @Override
    public double[] reference(float[] x, int rows, int cols) {
        return RowMaxSum.rowwise(x, rows, cols, (v, row) -> (v - row.max()) - Math.log(row.sum()));
    }

    @Override
    public Optional<VendorBaseline> vendor() {
        return Optional.of(VendorBaseline.CUDNN_SOFTMAX_LOG);
    }

    @Override
    public String ownBaseline() {
        return "log_softmax_two_pass";
    }

    @Override
    public String taskText() {
        return OperatorText.resource(LogSoftmax.class, "log_softmax.md");
    }
}
