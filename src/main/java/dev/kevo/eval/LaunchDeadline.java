package dev.kevo.eval;

import dev.kevo.data.PhaseLimits;

/**
 * How long the worker may wait for a candidate's work before its supervisor should kill it, derived from what
 * the shape needs. A spinning kernel cannot be interrupted from inside the worker (its synchronisation never
 * returns), so the worker announces each allowance ({@link Phase.Listener#expect}) before it waits, and the
 * supervisor kills the worker once it has passed.
 *
 * <ul>
 *   <li>A checked launch (one input case: generate, launch, reference, compare) may take {@code minimum + factor x}
 *   the baseline's launch on that shape, timed when the worker started. Scaling by the baseline keeps the allowance
 *   in step with the shape's size whichever baseline is configured; the factor leaves room for honest kernels far
 *   slower than the baseline (the naive seed, a thread per row, on one long row), the minimum for fixed costs, and a
 *   hang still costs seconds, not minutes.</li>
 *   <li>A batch of timed launches may take {@code minimum +} rounds x {@link #TIMING_FACTOR} x (the candidate's
 *   slowest checked launch + the baseline's and two copies', each bounded by the baseline's): by then the
 *   candidate's own speed is known, so a kernel that hangs only while timed is caught as quickly.</li>
 * </ul>
 *
 * @param minimumSeconds covers fixed costs (first launch of a module, the trusted kernels around a launch)
 * @param factor how many baseline launches a checked launch may take
 */
record LaunchDeadline(double minimumSeconds, double factor) {
    /** How many times its slowest checked launch a timed launch may take. */
    static final double TIMING_FACTOR = 4;

    static LaunchDeadline of(PhaseLimits limits) {
        return new LaunchDeadline(limits.launchMinimumSeconds(), limits.launchFactor());
    }

    /** Seconds one checked launch of a shape may take, given the baseline's launch there. */
    double check(double baselineMs) {
        return minimumSeconds + factor * baselineMs / 1000;
    }

    /** Seconds a batch of {@code rounds} timing rounds may take. */
    double timingBatch(int rounds, double candidateMs, double baselineMs) {
        return minimumSeconds + rounds * TIMING_FACTOR * (candidateMs + 3 * baselineMs) / 1000;
    }
}
