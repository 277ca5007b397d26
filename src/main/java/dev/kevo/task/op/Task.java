package dev.kevo.task.op;

import dev.kevo.KevoException;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;

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
        try {
            return new Task(Operators.byId(settings.op()), settings.dtype());
        } catch (IllegalArgumentException e) {
            throw KevoException.input("op: " + e.getMessage());
        }
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
