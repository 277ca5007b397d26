package dev.kevo.agent;

import java.util.Optional;

/**
 * An agent could not produce a usable proposal; recorded as an agent failure, the campaign goes on. When a
 * model answered but the answer was unusable (no code block, a SEARCH that does not match, cut short), the
 * exchange comes along so that the raw answer is recorded with the failure.
 */
public class AgentException extends RuntimeException {
    private final transient ModelCall call;

    public AgentException(String message) {
        this(message, (ModelCall) null);
    }

    public AgentException(String message, Throwable cause) {
        super(message, cause);
        this.call = null;
    }

    public AgentException(String message, ModelCall call) {
        super(message);
        this.call = call;
    }

    public Optional<ModelCall> call() {
        return Optional.ofNullable(call);
    }
}
