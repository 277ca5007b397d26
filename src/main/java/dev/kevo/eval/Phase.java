package dev.kevo.eval;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.kevo.data.PhaseLimits;
import java.time.Duration;

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

    /** The eval config's key for this phase's limit, for a message that tells a user where to raise it. */
    public String limitKey() {
        return "limits." + id + "_s";
    }

    /** How long this phase may take under {@code limits}. */
    public Duration limitIn(PhaseLimits limits) {
        return switch (this) {
            case COMPILE -> limits.compile();
            case CHECK -> limits.check();
            case TIMING -> limits.timing();
        };
    }

    /** Told when the evaluator enters a phase, and how long the work it is about to wait for may take. */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = phase -> { };

        void entered(Phase phase);

        /**
         * The work about to be queued and waited for ({@code what}, e.g. "case masked of 32x50257") should be done
         * within {@code seconds} of wall time; until the next call, a supervisor may kill the worker past it (a
         * launch that spins forever cannot be interrupted from inside the process).
         */
        default void expect(double seconds, String what) {
        }
    }
}
