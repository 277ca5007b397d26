package dev.kevo.task;

import dev.kevo.KevoException;

/** A kernel file that breaks the contract: missing or malformed header, unknown keys, bad expressions. */
public final class ContractException extends KevoException {
    public ContractException(String message) {
        super(Kind.INPUT, message);
    }

    /**
     * A file whose handling exhausted kevo's own stack or heap ({@link StackOverflowError},
     * {@link OutOfMemoryError}): that file's rejection in one line, so that one hostile file costs its verdict and
     * never the {@code check}, {@code eval} or campaign that met it. Every place that handles one file at a time
     * catches these two and turns them into this; no other {@link Error} is caught, since no file's content causes
     * one.
     *
     * @param file the file as its messages name it
     */
    public static ContractException exhausted(String file, VirtualMachineError e) {
        return new ContractException(file + ": kevo ran out of " + (e instanceof StackOverflowError ? "stack"
                : "memory") + " reading or checking this file (" + e.getClass().getSimpleName() + "), so it is "
                + "rejected; expressions, nesting and size are bounded (docs/contract.md)");
    }
}
