package dev.kevo.data;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;

/**
 * What a candidate's checked launches must show besides a right output (key {@code launch_checks}).
 *
 * <p>A checked launch is untimed, so time spent in it is free to a kernel unless it is held against the kernel's own
 * timed launches: none may take longer than {@code slowFactor} times the timed median of its shape plus
 * {@code slowSlackMs}. A checked launch's time is the lesser of its wall time and what CUDA events around it saw: a
 * pause of the host (a collection, a busy machine) inflates the first alone, and a kernel's own work both; the slack
 * covers the host's launch and synchronisation and the first launch of a module. A kernel that searched its inputs for what the timed launches
 * will hold would have to do it there.
 *
 * <p>Each shape is also launched twice on one input and the two outputs compared bit for bit. A kernel that sums in
 * an order the scheduler picks (atomics) differs, within tolerance; that is recorded as {@code deterministic: false},
 * and rejected ({@code nondeterministic}) only when {@code requireDeterministic} asks, as batch-invariant inference
 * does.
 */
@JsonDeserialize(builder = LaunchChecks.Builder.class)
public record LaunchChecks(double slowFactor, double slowSlackMs,
                           boolean requireDeterministic) {

    public LaunchChecks {
        if (!(slowFactor >= 1)) {
            throw new IllegalArgumentException("launch_checks.slow_factor must be >= 1");
        }
        if (!(slowSlackMs >= 0)) {
            throw new IllegalArgumentException("launch_checks.slow_slack_ms must be >= 0");
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public static LaunchChecks defaults() {
        return builder().build();
    }

    /** The most a checked launch may take, in ms, given the candidate's timed median on that shape. */
    public double slowestAllowedMs(double timedMedianMs) {
        return slowFactor * timedMedianMs + slowSlackMs;
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private double slowFactor = Defaults.SLOW_FACTOR;
        private double slowSlackMs = Defaults.SLOW_SLACK_MS;
        private boolean requireDeterministic = Defaults.REQUIRE_DETERMINISTIC;

        private Builder() {
        }

        public Builder slowFactor(double value) {
            slowFactor = value;
            return this;
        }

        public Builder slowSlackMs(double value) {
            slowSlackMs = value;
            return this;
        }

        public Builder requireDeterministic(boolean value) {
            requireDeterministic = value;
            return this;
        }

        public LaunchChecks build() {
            return new LaunchChecks(slowFactor, slowSlackMs, requireDeterministic);
        }
    }
}
