package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.time.Duration;

/**
 * Wall-time limits, in seconds, a supervisor enforces per phase of judging a candidate. {@code startup} covers
 * a worker's JVM, CUDA and NVRTC start and its baseline check. The phase limits are outer bounds; within them each
 * checked launch, and each batch of timed launches, has a deadline of its own derived from what the shape needs
 * (the evaluator's launch deadline: {@code launchMinimumSeconds} plus {@code launchFactor} times the baseline's
 * launch), so a hung kernel costs seconds, not the phase's minutes, while an honest slow kernel (the naive seed, a
 * thread per row, on one row of 10^7) still passes. {@code launchMinimumSeconds} is read from the key
 * {@code launch_floor_s}: in code, "floor" means only the memory floor.
 * {@code workerMemoryGb} bounds the worker's resident memory: a source that makes NVRTC eat memory is stopped
 * before it takes the machine down, not only when its time runs out.
 */
@JsonDeserialize(builder = PhaseLimits.Builder.class)
public record PhaseLimits(@JsonProperty("startup_s") double startupSeconds,
                          @JsonProperty("compile_s") double compileSeconds,
                          @JsonProperty("check_s") double checkSeconds,
                          @JsonProperty("timing_s") double timingSeconds, double workerMemoryGb,
                          @JsonProperty("launch_floor_s") double launchMinimumSeconds, double launchFactor) {

    public PhaseLimits {
        for (double d : new double[] {startupSeconds, compileSeconds, checkSeconds, timingSeconds, workerMemoryGb,
                launchMinimumSeconds, launchFactor}) {
            if (!(d > 0)) {
                throw new IllegalArgumentException("limits must be positive numbers");
            }
        }
    }

    /** The defaults ({@link Defaults}), each key then set by name; YAML binds through it too. */
    public static Builder builder() {
        return new Builder();
    }

    public static PhaseLimits defaults() {
        return builder().build();
    }

    public long workerMemoryBytes() {
        return (long) (workerMemoryGb * (1L << 30));
    }

    public Duration startup() {
        return seconds(startupSeconds);
    }

    public Duration compile() {
        return seconds(compileSeconds);
    }

    public Duration check() {
        return seconds(checkSeconds);
    }

    public Duration timing() {
        return seconds(timingSeconds);
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private double startupSeconds = Defaults.STARTUP_S;
        private double compileSeconds = Defaults.COMPILE_S;
        private double checkSeconds = Defaults.CHECK_S;
        private double timingSeconds = Defaults.TIMING_S;
        private double workerMemoryGb = Defaults.WORKER_MEMORY_GB;
        private double launchMinimumSeconds = Defaults.LAUNCH_MINIMUM_S;
        private double launchFactor = Defaults.LAUNCH_FACTOR;

        private Builder() {
        }

        @JsonProperty("startup_s")
        @JsonAlias("startupSeconds")
        public Builder startupSeconds(double value) {
            startupSeconds = value;
            return this;
        }

        @JsonProperty("compile_s")
        @JsonAlias("compileSeconds")
        public Builder compileSeconds(double value) {
            compileSeconds = value;
            return this;
        }

        @JsonProperty("check_s")
        @JsonAlias("checkSeconds")
        public Builder checkSeconds(double value) {
            checkSeconds = value;
            return this;
        }

        @JsonProperty("timing_s")
        @JsonAlias("timingSeconds")
        public Builder timingSeconds(double value) {
            timingSeconds = value;
            return this;
        }

        public Builder workerMemoryGb(double value) {
            workerMemoryGb = value;
            return this;
        }

        @JsonProperty("launch_floor_s")
        @JsonAlias("launchFloorSeconds")
        public Builder launchMinimumSeconds(double value) {
            launchMinimumSeconds = value;
            return this;
        }

        public Builder launchFactor(double value) {
            launchFactor = value;
            return this;
        }

        public PhaseLimits build() {
            return new PhaseLimits(startupSeconds, compileSeconds, checkSeconds, timingSeconds, workerMemoryGb,
                    launchMinimumSeconds, launchFactor);
        }
    }
}
