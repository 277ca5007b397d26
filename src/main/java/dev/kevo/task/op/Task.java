package dev.kevo.task.op;

import dev.kevo.KevoException;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import java.util.List;
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
        return new Task(op, settings.dtype());
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

    /** e.g. {@code softmax bf16}. */
    @Override
    public String toString() {
        return op.id() + " " + dtype.id();
    }
}
