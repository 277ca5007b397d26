package dev.kevo.task;

import dev.kevo.KevoException;

/** A kernel file that breaks the contract: missing or malformed header, unknown keys, bad expressions. */
public final class ContractException extends KevoException {
    public ContractException(String message) {
        super(Kind.INPUT, message);
    }
}
