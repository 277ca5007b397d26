package dev.kevo.data;


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
 *     this fraction of the median (or within {@code ciFloorMicros})
 * @param ciFloorMicros absolute precision that is always enough, for kernels of a few microseconds whose
 *     median cannot be pinned to 1% within {@code maxRepetitions}
 * @param maxSecondsPerShape stop a shape's timing after this much wall time (at least 5 repetitions are kept)
 * @param flushL2 flush L2 before every timed launch
 * @param inputSets distinct input buffers rotated through
 */
public record MeasurementMethod(double settleMillis, double warmupMillis, int minRepetitions, int maxRepetitions, double targetCi,
                                double ciFloorMicros, double maxSecondsPerShape, boolean flushL2, int inputSets) {

    public static final MeasurementMethod DEFAULT = new MeasurementMethod(100, 5, 5, 200, 0.01, 0.05, 3, true, 3);

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
        if (!(ciFloorMicros >= 0)) {
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
        return halfWidthMs <= targetCi * stats.medianMs() || halfWidthMs * 1000 <= ciFloorMicros;
    }
}
