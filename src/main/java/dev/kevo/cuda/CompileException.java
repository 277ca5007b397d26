package dev.kevo.cuda;

import dev.kevo.KevoException;

/** NVRTC rejected a source; the message carries the first error with its file:line, {@link #log()} all of it. */
public final class CompileException extends KevoException {
    private final String log;

    public CompileException(String message, String log) {
        super(Kind.INPUT, message);
        this.log = log;
    }

    public String log() {
        return log;
    }
}
