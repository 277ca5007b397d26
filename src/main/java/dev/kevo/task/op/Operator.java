package dev.kevo.task.op;

import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import java.util.List;
import java.util.Optional;

/**
 * What kevo judges: an operator's tensors, the bytes its floor must move, the inputs it is checked on, its float64
 * reference (on the GPU and on the CPU), its vendor baseline and how it is explained to a model. Everything that
 * differs between operators is here; the evaluator, the campaign, the store and the reports work through it.
 *
 * <p>Operators are found by id ({@link Operators}): kevo's own, and any that a jar names in
 * {@code META-INF/services/dev.kevo.task.op.Operator}, so an operator is added by adding files.
 *
 * <p>The evaluator's harness today serves the row-wise family: one input and one output of {@code rows x cols}
 * elements, and a reference that needs one statistic per row (two doubles), computed in chunks of a row and merged.
 * {@link #referenceSource()} defines that statistic and the expected output in CUDA (docs/operators.md).
 */
public interface Operator {

    /** The header key {@code op} and the config key {@code eval.op}: lower case, e.g. {@code softmax}. */
    String id();

    /** The buffers a plan can pass, in the order a kernel usually takes them; names are unique. */
    List<Tensor> tensors();

    /** The input cases it is checked on, by default (a config can choose among them). */
    default List<InputCase> inputCases() {
        return List.of(InputCase.values());
    }

    /**
     * When an output counts as right against the float64 reference, derived for this operator's outputs (softmax's is
     * calibrated on torch and the seeds: docs/measurement.md); an eval config's {@code tolerance} block replaces it.
     */
    Tolerance tolerance();

    /**
     * CUDA that defines, for the harness's generic reference and comparison kernels (eval/harness.cu): the row
     * statistic's start, how an element and a partial statistic fold into it, and the expected output of an element
     * from the row's statistic. Compiled after the harness, in float64.
     */
    String referenceSource();

    /** The operator in float64 on the CPU, row by row: what the GPU reference is tested against. */
    double[] reference(float[] x, int rows, int cols);

    /** The vendor's implementation that scores are taken over, where there is one. */
    Optional<VendorBaseline> vendor();

    /**
     * The kernel file under {@code evaluator/baselines/} (without {@code .cu}) that scores are taken over when the
     * vendor's library is missing or has no such operator.
     */
    String ownBaseline();

    /**
     * The task stated for a model, in markdown: the definition, the inputs it will see and what to take care of. The
     * element types are the prompt's own ({@code {{dtype}}}), stated beside it.
     */
    String taskText();

    /** The one tensor the row-wise harness fills. */
    default Tensor input() {
        return only(Tensor.Role.INPUT);
    }

    /** The one tensor the row-wise harness judges. */
    default Tensor output() {
        return only(Tensor.Role.OUTPUT);
    }

    /**
     * Bytes the operator must move at least for {@code shape}: each input read once and each output written once.
     * The memory floor is the time of a copy of as many bytes (half read, half written).
     */
    default long floorBytes(Shape shape, Precision dtype) {
        return tensors().stream().mapToLong(t -> t.bytes(shape, dtype)).sum();
    }

    /** Bytes of its inputs for {@code shape}: what any correct kernel reads from device memory at least once. */
    default long inputBytes(Shape shape, Precision dtype) {
        return tensors().stream().filter(t -> t.role() == Tensor.Role.INPUT).mapToLong(t -> t.bytes(shape, dtype))
                .sum();
    }

    private Tensor only(Tensor.Role role) {
        List<Tensor> found = tensors().stream().filter(t -> t.role() == role).toList();
        if (found.size() != 1) {
            throw new IllegalStateException(id() + ": the row-wise harness takes one " + role + " tensor, not "
                    + found.size());
        }
        return found.getFirst();
    }
}
