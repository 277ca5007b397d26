package dev.kevo.task.op;

import dev.kevo.KevoException;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** What one evaluation judges: an operator in one dtype pair. */
public record Task(Operator op, Precision dtype) {

    public static Task softmax(Precision dtype) {
        return new Task(Operators.SOFTMAX, dtype);
    }

    /**
     * The task a configuration judges: its {@code op} and {@code dtype}.
     *
     * @throws KevoException (input) for an operator kevo does not know, naming those it does
     */
    public static Task of(EvalSettings settings) {
        Operator op;
        try {
            op = Operators.byId(settings.op());
        } catch (IllegalArgumentException e) {
            throw KevoException.input("op: " + e.getMessage());
        }
        unjudgedTensors(op).ifPresent(why -> {
            throw KevoException.input("op: " + why);
        });
        return new Task(op, settings.dtype());
    }

    /**
     * Which of {@code op}'s tensors kevo's evaluator cannot generate or judge ({@link Tensor.Extent#judged}), in one
     * line, or empty when it serves them all: an operator with a loss's labels or value waits for the harness to
     * grow (docs/operators.md, "cross_entropy").
     */
    public static Optional<String> unjudgedTensors(Operator op) {
        List<String> unserved = op.tensors().stream().filter(t -> !t.extent().judged(t.role()))
                .map(t -> "`" + t.name() + "` (" + t.role().name().toLowerCase(java.util.Locale.ROOT) + ", "
                        + t.extent().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ') + ")").toList();
        return unserved.isEmpty() ? Optional.empty() : Optional.of(op.id() + " has tensors kevo's evaluator does not "
                + "generate or judge yet: " + String.join(", ", unserved));
    }

    /**
     * This task, where it is the one {@code settings} name ({@code op}, {@code dtype}): an evaluator's settings and
     * task must agree.
     *
     * @throws IllegalArgumentException where it is not
     */
    public Task under(EvalSettings settings) {
        if (!op.id().equals(settings.op().trim()) || !dtype.equals(settings.dtype())) {
            throw new IllegalArgumentException("task " + this + " under settings of " + settings.op() + " "
                    + settings.dtype().id());
        }
        return this;
    }

    /**
     * The input cases an evaluation checks: those of {@code settings} that the operator is checked on, in the
     * settings' order.
     *
     * @throws KevoException (input) when none of them is
     */
    public List<InputCase> cases(EvalSettings settings) {
        List<InputCase> cases = settings.cases().stream().filter(op.inputCases()::contains).toList();
        if (cases.isEmpty()) {
            throw KevoException.input("cases: " + op.id() + " is checked on none of " + settings.cases().stream()
                    .map(InputCase::id).collect(Collectors.joining(", ")) + " (its cases: " + op.inputCases()
                    .stream().map(InputCase::id).collect(Collectors.joining(", ")) + ")");
        }
        return cases;
    }

    /** The tolerance {@code settings} judge by: their {@code tolerance} block where they have one, else the operator's. */
    public Tolerance tolerance(EvalSettings settings) {
        return settings.tolerance() != null ? settings.tolerance() : op.tolerance();
    }

    /**
     * Why the vendor's library (cuDNN) cannot be this task's baseline, in a phrase, or empty when it can: its softmax
     * takes one dtype for x and y, and it has only some operators.
     */
    public Optional<String> vendorCannotServe() {
        if (dtype.x() != dtype.y()) {
            return Optional.of("cuDNN's softmax takes one dtype for x and y, not " + dtype.id());
        }
        return op.vendor().isEmpty() ? Optional.of("cuDNN has no " + op.id()) : Optional.empty();
    }

    /** Bytes the floor's copy moves for {@code shape}: what the operator must move. */
    public long floorBytes(Shape shape) {
        return op.floorBytes(shape, dtype);
    }

    /**
     * Elements kevo's copy kernel moves for the floor of {@code shape}, each read in x's type and written in y's: as
     * many as take {@link #floorBytes} (rounded up), which for an operator that reads x and writes y alone is the
     * shape's elements, and for one that also reads a mask is more.
     */
    public long floorCopyElements(Shape shape) {
        long perElement = dtype.x().bytes() + dtype.y().bytes();
        return (floorBytes(shape) + perElement - 1) / perElement;
    }

    /**
     * The fewest bytes any correct kernel moves for {@code shape}, whatever the values: its outputs written once and
     * what it must read ({@link Operator#inputBytes}). The floor's bytes where every input must be read.
     */
    public long leastBytes(Shape shape) {
        return op.inputBytes(shape, dtype) + op.outputBytes(shape, dtype);
    }

    /**
     * The name and value of each of the operator's scalars for the input case whose inputs derive from
     * {@code caseSeed} ({@link Scalar#valueFor}).
     */
    public Map<String, Float> scalars(long caseSeed) {
        Map<String, Float> values = new LinkedHashMap<>();
        op.scalars().forEach(s -> values.put(s.name(), s.valueFor(caseSeed)));
        return values;
    }

    /** The name of the scalar the harness's reference takes as the scores' scale. */
    public static final String SCALE = "scale";

    /** The name of the scalar a loss takes as the incoming gradient of its value, which its dx is scaled by. */
    public static final String GRADIENT = "g";

    /** The scale of the scores for {@code caseSeed}'s case: the operator's {@value #SCALE}, 1 without one. */
    public float scale(long caseSeed) {
        return scalars(caseSeed).getOrDefault(SCALE, 1f);
    }

    /**
     * Whether this task can judge the shapes of suite {@code suite}: each of a mask kind the operator takes.
     *
     * @throws KevoException (input) naming the suite and its first shape that is not
     */
    public void checkSuite(String suite, List<Shape> shapes) {
        for (Shape shape : shapes) {
            if (!op.maskKinds().contains(shape.mask())) {
                throw KevoException.input("suite " + suite + ": shape " + shape + ": " + op.id() + " takes no "
                        + shape.mask().id() + " mask (its mask kinds: " + op.maskKinds().stream().map(k -> k.id())
                        .collect(Collectors.joining(", ")) + ")");
            }
        }
    }

    /** e.g. {@code softmax bf16}. */
    @Override
    public String toString() {
        return op.id() + " " + dtype.id();
    }
}
