package dev.kevo.eval;

import com.fasterxml.jackson.annotation.JsonValue;

/** The stages of judging a candidate; a supervisor bounds each one's wall time separately. */
public enum Phase {
    COMPILE("compile"), CHECK("check"), TIMING("timing");

    private final String id;

    Phase(String id) {
        this.id = id;
    }

    @JsonValue
    public String id() {
        return id;
    }

    /** Told when the evaluator enters a phase. */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = phase -> { };

        void entered(Phase phase);
    }
}
