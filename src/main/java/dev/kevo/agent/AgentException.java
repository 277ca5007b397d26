package dev.kevo.agent;

/** An agent could not produce a usable proposal; recorded as an agent failure, the campaign goes on. */
public class AgentException extends RuntimeException {
    public AgentException(String message) {
        super(message);
    }

    public AgentException(String message, Throwable cause) {
        super(message, cause);
    }
}
