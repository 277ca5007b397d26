package dev.kevo.task.op;

import dev.kevo.data.InputCase;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What kevo judges: an operator's tensors, the bytes its floor must move, the inputs it is checked on, its float64
 * reference (on the GPU and on the CPU), its vendor baseline and how it is explained to a model. Everything that
 * differs between operators is here; the evaluator, the campaign, the store and the reports work through it.
 *
 * <p>Operators are found by id ({@link Operators}): kevo's own, and any that a jar names in
 * {@code META-INF/services/dev.kevo.task.op.Operator}, so an operator is added by adding files.
 *
 * <p>The evaluator's harness serves the row-wise family: one input and one output of {@code rows x cols} elements, and
 * a reference that needs one statistic per row (two doubles), computed in chunks of a row and merged; and their
 * gradients ({@link #gradientOf}), which read two row inputs and fold a dot product of them.
 * Rows may be laid out as attention lays them out, with a mask kind ({@link dev.kevo.data.Shape}), and an operator
 * may take the tensors a mask brings (key lengths, an additive mask), which the harness generates and holds bit for
 * bit like x, and a runtime float ({@link Scalar}, the scale). {@link #referenceSource()} defines, in CUDA, an
 * element's score, that statistic and the expected output (docs/operators.md).
 */
public interface Operator {

    /** The header key {@code op} and the config key {@code eval.op}: lower case, e.g. {@code softmax}. */
    String id();

    /** The buffers a plan can pass, in the order a kernel usually takes them; names are unique. */
    List<Tensor> tensors();

    /** Its runtime float arguments, passed by name; none by default. */
    default List<Scalar> scalars() {
        return List.of();
    }

    /**
     * The mask kinds its shapes may have ({@link dev.kevo.data.Shape#mask()}): only none, by default. A suite shape of
     * another kind is an input error for it.
     */
    default List<MaskKind> maskKinds() {
        return List.of(MaskKind.NONE);
    }

    /**
     * The names its plans may use besides rows, cols, sms and knobs: for an operator of attention shapes, some of
     * {@link Shape#ATTENTION_VARIABLES}. None by default.
     */
    default Set<String> planVariables() {
        return Set.of();
    }

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
     * from the row's statistic. Plain arithmetic on doubles (kevo export compiles it for the host, as its examples'
     * reference). Compiled after the harness and {@link #scoreSource()}, in float64.
     */
    String referenceSource();

    /**
     * CUDA that defines an element's score from the harness's per-row context ({@code kv_score}: what the statistic
     * folds and the expected output is taken of) and whether its output must equal the reference exactly
     * ({@code kv_exact}). By default the element itself, nothing exact beyond an infinite answer (unmasked.cu): an
     * operator without a scale or a mask needs nothing here. Kept apart from {@link #referenceSource()} because it
     * reads the harness's types.
     */
    default String scoreSource() {
        return OperatorText.sources(Operator.class, "unmasked.cu");
    }

    /** The operator in float64 on the CPU, row by row: what the GPU reference is tested against. */
    double[] reference(float[] x, int rows, int cols);

    /**
     * The operator in float64 on the CPU for any shape and the inputs its mask kind brings; an operator without a mask
     * or a scale reads x alone.
     */
    default double[] reference(ReferenceInputs inputs) {
        return reference(inputs.x(), inputs.shape().rows(), inputs.shape().cols());
    }

    /** The vendor's implementation that scores are taken over, where there is one: none by default. */
    default Optional<VendorBaseline> vendor() {
        return Optional.empty();
    }

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

    /** The one tensor of {@code rows x cols} elements the row-wise harness fills: x. */
    default Tensor input() {
        return only(Tensor.Role.INPUT);
    }

    /**
     * The forward operator this one is the gradient of, or empty (the default) for a forward operator. A gradient reads
     * two row inputs ({@link #rowInputs}): the forward's output and the incoming gradient, in that order. The harness
     * generates them consistently, as training gives them (eval/harness_backward.cu): x as the forward's input, y as the
     * forward's float64 answer on it, dy per row; and it folds a dot product of the two rows, defined by
     * {@link #referenceSource()} (row_dot.cu), where a forward operator folds a statistic of x.
     */
    default Optional<Operator> gradientOf() {
        return Optional.empty();
    }

    /**
     * Its inputs of {@code rows x cols} elements, in its tensors' order: x alone for a forward operator, y and dy for a
     * gradient ({@link #gradientOf}). Every one is generated by kevo and held bit for bit.
     */
    default List<Tensor> rowInputs() {
        return tensors().stream().filter(t -> t.role() == Tensor.Role.INPUT && t.extent() == Tensor.Extent.ROWS_COLS)
                .toList();
    }

    /** The one tensor the row-wise harness judges. */
    default Tensor output() {
        return only(Tensor.Role.OUTPUT);
    }

    /**
     * Its output of one element (a loss's value, {@link Tensor.Extent#ONE}) beside {@link #output()}, or empty (the
     * default for the row-wise family): a loss writes its value and its gradient in one launch.
     */
    default Optional<Tensor> reducedOutput() {
        List<Tensor> found = tensors().stream()
                .filter(t -> t.role() == Tensor.Role.OUTPUT && t.extent() == Tensor.Extent.ONE).toList();
        if (found.size() > 1) {
            throw new IllegalStateException(id() + ": the harness judges one output of one element, not "
                    + found.size());
        }
        return found.stream().findFirst();
    }

    /** The tensors it reads beside {@link #input()}: what a mask brings, each of another extent. */
    default List<Tensor> extraInputs() {
        return tensors().stream().filter(t -> t.role() == Tensor.Role.INPUT && t.extent() != Tensor.Extent.ROWS_COLS)
                .toList();
    }

    /**
     * Bytes the operator must move at least for {@code shape}: each input read once and each output written once.
     * The memory floor is the time of a copy of as many bytes (half read, half written).
     */
    default long floorBytes(Shape shape, Precision dtype) {
        return tensors().stream().mapToLong(t -> t.bytes(shape, dtype)).sum();
    }

    /**
     * Bytes of its inputs for {@code shape}: what any correct kernel reads from device memory at least once, whatever
     * the values. Every input, by default; an operator whose mask spares some reads says less.
     */
    default long inputBytes(Shape shape, Precision dtype) {
        return tensors().stream().filter(t -> t.role() == Tensor.Role.INPUT).mapToLong(t -> t.bytes(shape, dtype))
                .sum();
    }

    /** Bytes of its outputs for {@code shape}: written once by any correct kernel. */
    default long outputBytes(Shape shape, Precision dtype) {
        return tensors().stream().filter(t -> t.role() == Tensor.Role.OUTPUT).mapToLong(t -> t.bytes(shape, dtype))
                .sum();
    }

    private Tensor only(Tensor.Role role) {
        List<Tensor> found = tensors().stream().filter(t -> t.role() == role && t.extent() == Tensor.Extent.ROWS_COLS)
                .toList();
        if (found.size() != 1) {
            throw new IllegalStateException(id() + ": the row-wise harness takes one " + role + " tensor, not "
                    + found.size());
        }
        return found.getFirst();
    }
}
