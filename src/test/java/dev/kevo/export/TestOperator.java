package dev.kevo.export;

import dev.kevo.data.Tolerance;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Tensor;
import java.util.List;

/**
 * An operator of any tensors, for what export makes of an operator's description alone: nothing here can be judged
 * (no reference), so it stands for operators the evaluator does not serve yet, such as one with a mask tensor.
 */
record TestOperator(String id, List<Tensor> tensors) implements Operator {

    /** {@code y = masked(x, mask)}: two inputs of x's type and one output, as a masked softmax would have. */
    static TestOperator masked() {
        return new TestOperator("masked", List.of(new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
                new Tensor("mask", Tensor.Role.INPUT, Tensor.Element.X),
                new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y)));
    }

    @Override
    public Tolerance tolerance() {
        return Tolerance.defaults();
    }

    @Override
    public String referenceSource() {
        throw new UnsupportedOperationException(id + " has no reference");
    }

    @Override
    public double[] reference(float[] x, int rows, int cols) {
        throw new UnsupportedOperationException(id + " has no reference");
    }

    @Override
    public String ownBaseline() {
        return "none";
    }

    @Override
    public String taskText() {
        return id;
    }
}
