package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.time.Duration;

/**
 * Wall-time limits, in seconds, a supervisor enforces per phase of judging a candidate. {@code startup} covers
 * a worker's JVM, CUDA and NVRTC start and its baseline check. The phase limits are outer bounds; within them each
 * checked launch, and each batch of timed launches, has a deadline of its own derived from what the shape needs
 * ({@link LaunchDeadline}: {@code launchFloorSeconds} plus {@code launchFactor} times the baseline's launch), so a
 * hung kernel costs seconds, not the phase's minutes, while an honest slow kernel (the naive seed, a thread per
 * row, on one row of 10^7) still passes.
 * {@code workerMemoryGb} bounds the worker's resident memory: a source that makes NVRTC eat memory is stopped
 * before it takes the machine down, not only when its time runs out.
 */
public record PhaseLimits(double startupSeconds, double compileSeconds, double checkSeconds, double timingSeconds,
                          double workerMemoryGb, double launchFloorSeconds, double launchFactor) {

    public static final PhaseLimits DEFAULT = new PhaseLimits(120, 20, 120, 240, 16, 1, 100);

    @JsonCreator
    public PhaseLimits {
        for (double d : new double[] {startupSeconds, compileSeconds, checkSeconds, timingSeconds, workerMemoryGb,
                launchFloorSeconds, launchFactor}) {
            if (!(d > 0)) {
                throw new IllegalArgumentException("limits must be positive numbers");
            }
        }
    }

    /** Phase limits with the default launch deadlines. */
    public PhaseLimits(double startupSeconds, double compileSeconds, double checkSeconds, double timingSeconds,
                       double workerMemoryGb) {
        this(startupSeconds, compileSeconds, checkSeconds, timingSeconds, workerMemoryGb,
                DEFAULT_LAUNCH_FLOOR_SECONDS, DEFAULT_LAUNCH_FACTOR);
    }

    private static final double DEFAULT_LAUNCH_FLOOR_SECONDS = 1;
    private static final double DEFAULT_LAUNCH_FACTOR = 100;

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
}
