package dev.kevo.task.op;

import dev.kevo.data.InputCase;
import dev.kevo.data.Tolerance;
import java.util.Arrays;
import java.util.List;

/**
 * y = x: an operator defined only in test code (this class, its reference in copy.cu and its line in
 * META-INF/services), to show that an operator is added by adding files. Its tensors are named apart from softmax's,
 * so nothing can work by assuming x and y.
 */
public final class CopyOperator implements Operator {
    private static final List<Tensor> TENSORS = List.of(new Tensor("src", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("dst", Tensor.Role.OUTPUT, Tensor.Element.Y));

    @Override
    public String id() {
        return "copy";
    }

    @Override
    public List<Tensor> tensors() {
        return TENSORS;
    }

    /** All but the lowest-mask case: an operator chooses what it is checked on, and a copy has no masks to honour. */
    @Override
    public List<InputCase> inputCases() {
        return Arrays.stream(InputCase.values()).filter(c -> c != InputCase.LOWEST_MASK).toList();
    }

    /** A copy is exact: the least tolerance a Tolerance can state, so a test of its own shows the operator's is used. */
    @Override
    public Tolerance tolerance() {
        return new Tolerance(1e-12, 0, 0);
    }

    @Override
    public String referenceSource() {
        return OperatorText.resource(CopyOperator.class, "copy.cu");
    }

    @Override
    public double[] reference(float[] x, int rows, int cols) {
        double[] y = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            y[i] = x[i];
        }
        return y;
    }

    @Override
    public String ownBaseline() {
        return "copy_baseline";
    }

    @Override
    public String taskText() {
        return "`dst[r, c] = src[r, c]`, row-major, `rows x cols`.";
    }
}
