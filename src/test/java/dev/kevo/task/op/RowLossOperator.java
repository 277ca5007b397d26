package dev.kevo.task.op;

import dev.kevo.data.Tolerance;
import java.util.List;

/**
 * A loss-shaped operator defined only in test code, with the tensors cross_entropy will have (int64 labels, one a row;
 * a float32 loss, one element; a gradient of x's shape): what kevo can already do with such an operator (parse, type
 * and compile its kernels, state its contract to a model) and what it refuses in one line until its evaluator grows
 * (judge it, export it). Its reference is copy's: nothing judges it.
 */
public final class RowLossOperator implements Operator {
    private static final List<Tensor> TENSORS = List.of(
            new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("labels", Tensor.Role.INPUT, Tensor.Element.INT64, Tensor.Extent.ROWS),
            new Tensor("dx", Tensor.Role.OUTPUT, Tensor.Element.Y),
            new Tensor("loss", Tensor.Role.OUTPUT, Tensor.Element.F32, Tensor.Extent.ONE));

    @Override
    public String id() {
        return "row_loss";
    }

    @Override
    public List<Tensor> tensors() {
        return TENSORS;
    }

    @Override
    public Tolerance tolerance() {
        return new Tolerance(1e-4, 1e-4, 0);
    }

    @Override
    public String referenceSource() {
        return OperatorText.resource(CopyOperator.class, "copy.cu");
    }

    @Override
    public double[] reference(float[] x, int rows, int cols) {
        throw new UnsupportedOperationException("row_loss is never judged");
    }

    @Override
    public String ownBaseline() {
        return "copy_baseline";
    }

    @Override
    public String taskText() {
        return "`loss = sum_r -x[r, labels[r]]`, `dx = -onehot(labels)`: a loss's shape, for kevo's own tests.";
    }
}
