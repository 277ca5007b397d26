package dev.kevo.task;

import dev.kevo.KevoException;

/** A launch plan that cannot be used for a shape: no plan covers it, or an expression fails or is out of range. */
public final class PlanException extends KevoException {
    public PlanException(String message) {
        super(Kind.INPUT, message);
    }
}
