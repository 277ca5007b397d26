package dev.kevo.task.op;

import dev.kevo.data.Tolerance;
import java.util.List;
import java.util.Optional;

/** {@code y = exp(x - max) / sum(exp(x - max))} over each row of {@code x}: the operator kevo started with. */
final class Softmax implements Operator {
    private static final List<Tensor> TENSORS = List.of(new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y));

    @Override
    public String id() {
        return "softmax";
    }

    @Override
    public List<Tensor> tensors() {
        return TENSORS;
    }

    /** The calibrated defaults (relative L2 1e-4, per element 1e-6 + 1e-4 |ref|): docs/measurement.md. */
    @Override
    public Tolerance tolerance() {
        return Tolerance.defaults();
    }

    @Override
    public String referenceSource() {
        return OperatorText.sources(Softmax.class, "row_max_sum.cu", "softmax.cu");
    }

    @Override
    public double[] reference(float[] x, int rows, int cols) {
        return RowMaxSum.rowwise(x, rows, cols, (v, row) -> Math.exp(v - row.max()) / row.sum());
    }

    @Override
    public Optional<VendorBaseline> vendor() {
        return Optional.of(VendorBaseline.CUDNN_SOFTMAX_ACCURATE);
    }

    @Override
    public String ownBaseline() {
        return "block_two_pass";
    }

    @Override
    public String taskText() {
        return OperatorText.resource(Softmax.class, "softmax.md");
    }
}
