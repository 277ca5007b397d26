package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;


/**
 * How kevo times a kernel, stated rather than implied (the way JMH states warm-up and iterations), and
 * recorded with every result so a number can be traced to the method that produced it.
 *
 * <p>Each repetition flushes L2 (reads a buffer of twice its size outside the timed region), reads a
 * different input set than the one before, and is timed with CUDA events. Baseline, candidate and the two plain
 * copies run interleaved, so clock drift hits them all alike.
 *
 * @param settleMillis wall time the GPU is kept busy before a candidate's first shape is timed, so that its clocks
 *     have ramped up from idle (checks leave it mostly idle, waiting on the host)
 * @param warmupMillis wall time of untimed launches per shape (at least one round); the correctness checks have
 *     already launched the kernel on every shape, so module load and lazy init are behind it
 * @param minRepetitions timed repetitions per variant before the stop rule is consulted
 * @param maxRepetitions cap per variant
 * @param targetCi a variant is timed precisely enough once the 95% confidence interval of its median is within
 *     this fraction of the median (or within {@code ciEnoughMicros})
 * @param ciEnoughMicros absolute precision that is always enough, for kernels of a few microseconds whose
 *     median cannot be pinned to 1% within {@code maxRepetitions} (key {@code ci_floor_us}: not the memory floor)
 * @param maxSecondsPerShape stop a shape's timing after this much wall time (at least 5 repetitions are kept)
 * @param flushL2 flush L2 before every timed launch
 * @param inputSets distinct input buffers rotated through
 */
@JsonDeserialize(builder = MeasurementMethod.Builder.class)
public record MeasurementMethod(@JsonProperty("settle_ms") double settleMillis,
                                @JsonProperty("warmup_ms") double warmupMillis, int minRepetitions,
                                int maxRepetitions, double targetCi,
                                @JsonProperty("ci_floor_us") double ciEnoughMicros, double maxSecondsPerShape,
                                boolean flushL2, int inputSets) {

    /**
     * How far two evaluations of the same kernel may differ, in a shape's median or in the score, and still count
     * as the same result. Within one process the medians of 5-17 us shapes move by a few percent between
     * evaluations, the copy's too (bench/results/gpu-tests-h100.txt prints the spreads); kernels with more blocks than the GPU holds at once can also settle in one of two
     * modes per process (bench/results/repeatability-cross-process-h100.txt). {@code kevo reeval} flags a saved
     * mutant whose score moved by more than this.
     */
    public static final double NOISE_BOUND = 0.05;

    public MeasurementMethod {
        if (settleMillis < 0) {
            throw new IllegalArgumentException("settle_ms must be >= 0");
        }
        if (warmupMillis < 0) {
            throw new IllegalArgumentException("warmup_ms must be >= 0");
        }
        if (minRepetitions < 3 || maxRepetitions < minRepetitions) {
            throw new IllegalArgumentException("need 3 <= min_repetitions <= max_repetitions");
        }
        if (!(targetCi > 0 && targetCi < 1)) {
            throw new IllegalArgumentException("target_ci must be a fraction in (0, 1)");
        }
        if (!(ciEnoughMicros >= 0)) {
            throw new IllegalArgumentException("ci_floor_us must be >= 0");
        }
        if (!(maxSecondsPerShape > 0)) {
            throw new IllegalArgumentException("max_seconds_per_shape must be positive");
        }
        if (inputSets < 1 || inputSets > 16) {
            throw new IllegalArgumentException("input_sets must be in [1, 16]");
        }
    }

    /** True when a sample pins its median as precisely as this method asks. */
    public boolean preciseEnough(Stats stats) {
        double halfWidthMs = (stats.ciHighMs() - stats.ciLowMs()) / 2;
        return halfWidthMs <= targetCi * stats.medianMs() || halfWidthMs * 1000 <= ciEnoughMicros;
    }

    /** The defaults ({@link Defaults}), each key then set by name; YAML binds through it too. */
    public static Builder builder() {
        return new Builder();
    }

    public static MeasurementMethod defaults() {
        return builder().build();
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private double settleMillis = Defaults.SETTLE_MS;
        private double warmupMillis = Defaults.WARMUP_MS;
        private int minRepetitions = Defaults.MIN_REPETITIONS;
        private int maxRepetitions = Defaults.MAX_REPETITIONS;
        private double targetCi = Defaults.TARGET_CI;
        private double ciEnoughMicros = Defaults.CI_ENOUGH_US;
        private double maxSecondsPerShape = Defaults.MAX_SECONDS_PER_SHAPE;
        private boolean flushL2 = Defaults.FLUSH_L2;
        private int inputSets = Defaults.INPUT_SETS;

        private Builder() {
        }

        @JsonProperty("settle_ms")
        @JsonAlias("settleMillis")
        public Builder settleMillis(double value) {
            settleMillis = value;
            return this;
        }

        @JsonProperty("warmup_ms")
        @JsonAlias("warmupMillis")
        public Builder warmupMillis(double value) {
            warmupMillis = value;
            return this;
        }

        public Builder minRepetitions(int value) {
            minRepetitions = value;
            return this;
        }

        public Builder maxRepetitions(int value) {
            maxRepetitions = value;
            return this;
        }

        public Builder targetCi(double value) {
            targetCi = value;
            return this;
        }

        @JsonProperty("ci_floor_us")
        @JsonAlias("ciFloorMicros")
        public Builder ciEnoughMicros(double value) {
            ciEnoughMicros = value;
            return this;
        }

        public Builder maxSecondsPerShape(double value) {
            maxSecondsPerShape = value;
            return this;
        }

        public Builder flushL2(boolean value) {
            flushL2 = value;
            return this;
        }

        public Builder inputSets(int value) {
            inputSets = value;
            return this;
        }

        public MeasurementMethod build() {
            return new MeasurementMethod(settleMillis, warmupMillis, minRepetitions, maxRepetitions, targetCi,
                    ciEnoughMicros, maxSecondsPerShape, flushL2, inputSets);
        }
    }
}
