package dev.kevo.eval;

import java.time.Duration;

/**
 * Wall-time limits, in seconds, a supervisor enforces per phase of judging a candidate. {@code startup} covers
 * a worker's JVM, CUDA and NVRTC start and its baseline check. The defaults leave room for the naive seed on
 * the standard suite (its 1x10^7 row takes 1.5 s a launch) and still catch a hung kernel within minutes.
 * {@code workerMemoryGb} bounds the worker's resident memory: a source that makes NVRTC eat memory is stopped
 * before it takes the machine down, not only when its time runs out.
 */
public record PhaseLimits(double startupSeconds, double compileSeconds, double checkSeconds, double timingSeconds,
                          double workerMemoryGb) {

    public static final PhaseLimits DEFAULT = new PhaseLimits(120, 20, 120, 240, 16);

    public PhaseLimits {
        for (double d : new double[] {startupSeconds, compileSeconds, checkSeconds, timingSeconds, workerMemoryGb}) {
            if (!(d > 0)) {
                throw new IllegalArgumentException("limits must be positive numbers of seconds");
            }
        }
    }

    public long workerMemoryBytes() {
        return (long) (workerMemoryGb * (1L << 30));
    }

    public Duration startup() {
        return seconds(startupSeconds);
    }

    public Duration of(Phase phase) {
        return seconds(switch (phase) {
            case COMPILE -> compileSeconds;
            case CHECK -> checkSeconds;
            case TIMING -> timingSeconds;
        });
    }

    private static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }
}
