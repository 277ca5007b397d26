package dev.kevo.task.op;

import dev.kevo.data.Tolerance;
import java.util.List;
import java.util.Optional;

/**
 * {@code F.cross_entropy(x, labels, ignore_index=-100, reduction='mean')} and its gradient, fused as training runs
 * them: from logits x (rows are tokens, columns the vocabulary) and int64 labels, one a row, the float32 loss and
 * {@code dx = g (softmax(x) - onehot(label)) / n}, where n counts the rows whose label is not -100 and {@code g} is the
 * incoming gradient of the loss (1 for {@code loss.backward()}, a loss scale or an accumulation weight otherwise). An
 * ignored row's dx is exactly 0; with no live row the loss is NaN (0 / 0, as torch gives) and dx is 0 everywhere.
 * {@link CrossEntropyReference} is the specification on the CPU; harness_cross_entropy.cu the GPU's.
 *
 * <p>{@code reduction='sum'} is an operator of its own, {@code cross_entropy_sum} ({@link #SUM}): the loss is the sum
 * over live rows (0 with none), {@code dx = g (softmax(x) - onehot(label))}, with no count of the live rows before it.
 * Training that divides by a token count of its own (across ranks and micro-batches) takes it. Its kernels are files
 * of their own; the harness takes the reduction from the operator's reference source ({@code KV_CE_MEAN}).
 *
 * <p>Its row statistic is log_softmax's (max, sum of exp(x - max)), so its reference source is that operator's: the
 * harness takes an element's probability as the exponential of its log-probability, and a row's loss as minus the
 * log-probability at its label.
 */
final class CrossEntropy implements Operator {
    static final CrossEntropy MEAN = new CrossEntropy(CrossEntropyReference.Reduction.MEAN);
    static final CrossEntropy SUM = new CrossEntropy(CrossEntropyReference.Reduction.SUM);
    private static final List<Tensor> TENSORS = List.of(
            new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("labels", Tensor.Role.INPUT, Tensor.Element.INT64, Tensor.Extent.ROWS),
            new Tensor("dx", Tensor.Role.OUTPUT, Tensor.Element.Y),
            new Tensor("loss", Tensor.Role.OUTPUT, Tensor.Element.F32, Tensor.Extent.ONE));
    /**
     * The incoming gradient: 1 ({@code loss.backward()}), a quarter (gradient accumulation over four micro-batches), 3
     * (a weighted sum of losses) and 1024 (fp16's loss scaling), drawn per case so that a kernel that takes it as 1 is
     * wrong on the others.
     */
    private static final List<Scalar> SCALARS = List.of(new Scalar(Task.GRADIENT, List.of(1f, 0.25f, 3f, 1024f)));

    private final CrossEntropyReference.Reduction reduction;

    private CrossEntropy(CrossEntropyReference.Reduction reduction) {
        this.reduction = reduction;
    }

    /** {@code cross_entropy} (mean, torch's default) or {@code cross_entropy_sum}. */
    @Override
    public String id() {
        return reduction == CrossEntropyReference.Reduction.MEAN ? "cross_entropy" : "cross_entropy_sum";
    }

    CrossEntropyReference.Reduction reduction() {
        return reduction;
    }

    @Override
    public List<Tensor> tensors() {
        return TENSORS;
    }

    @Override
    public List<Scalar> scalars() {
        return SCALARS;
    }

    /**
     * Softmax's calibrated bound on a probability, carried onto dx by {@code |g| / n}: per element
     * {@code (1e-6 + 1e-4 p) |g| / n} plus dx's ulp, and a case's relative L2 of 1e-4 against {@code |g| / n (p +
     * onehot)}; the loss within 1e-4 (the relative L2) of its scale, the mean of {@code |max - x[label]| + log(sum) + 1}
     * (docs/operators.md, "cross_entropy").
     */
    @Override
    public Tolerance tolerance() {
        return Tolerance.defaults();
    }

    /** log_softmax's statistic, and the reduction for harness_cross_entropy.cu, compiled after it. */
    @Override
    public String referenceSource() {
        return OperatorText.sources(CrossEntropy.class, "row_max_sum.cu", "log_softmax.cu")
                + "#define KV_CE_MEAN " + (reduction == CrossEntropyReference.Reduction.MEAN ? 1 : 0) + "\n";
    }

    /**
     * dx on the CPU for labels of a fixed rule (row r labels column {@code (7 r) % cols}, every eighth row ignored),
     * {@code g = 1}; the evaluator's own labels are drawn per case (harness_cross_entropy.cu, kv_ce_label).
     */
    @Override
    public double[] reference(float[] x, int rows, int cols) {
        long[] labels = new long[rows];
        for (int r = 0; r < rows; r++) {
            labels[r] = r % 8 == 0 ? CrossEntropyReference.IGNORE_INDEX : (7L * r) % cols;
        }
        return CrossEntropyReference.of(x, labels, rows, cols, reduction, 1.0).dx();
    }

    /** cuDNN has no cross-entropy: scores are over kevo's own two-pass kernel. */
    @Override
    public Optional<VendorBaseline> vendor() {
        return Optional.empty();
    }

    @Override
    public String ownBaseline() {
        return id() + "_two_pass";
    }

    @Override
    public String taskText() {
        return OperatorText.resource(CrossEntropy.class, id() + ".md");
    }
}
