package dev.kevo.eval;

import dev.kevo.data.DeviceInfo;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.Stats;
import java.util.Locale;

/**
 * Times no correct softmax can reach. L2 is flushed before every timed launch, so a correct kernel reads all of x
 * from device memory at least once; the plain copy of the same bytes (the floor) is the practical bound. A kernel
 * is rejected ({@code faster-than-memory}) when, even at the favourable ends of both confidence intervals, it beats
 * a copy of at least {@link #MIN_COPY_MS} by more than {@link #FLOOR_LIMIT}, or when it is faster than reading x at
 * the device's peak memory bandwidth, beyond the noise bound.
 */
final class MemoryBound {
    /**
     * How far beyond the copy an honest kernel has been seen: 1.35 on 1823x781 (the copy runs at a third of peak
     * there; bench/results/tolerance-calibration-h100.json), 1.04 on every other shape. The launch-skipping kernel
     * of issue 15 reached 3.65.
     */
    static final double FLOOR_LIMIT = 1.5;
    /**
     * Below this a copy's time is mostly a launch's fixed latency, not memory (32x128: 4.4 us for 32 KB moved), and a
     * kernel with a shorter dependency chain may legitimately beat it; there only the bandwidth rule applies.
     */
    static final double MIN_COPY_MS = 0.008;

    private MemoryBound() {
    }

    /** Why the candidate's time is impossible, or null when it is not: an operator that must move all the copy moves. */
    static String violation(Stats candidate, Stats copy, long bytes, DeviceInfo device) {
        return violation(candidate, copy, bytes, 1.0, device);
    }

    /**
     * Why the candidate's time is impossible, or null when it is not. {@code copyOverLeast} is the copy's bytes over
     * the fewest any correct kernel moves ({@code Task.leastBytes}): 1 where every input must be read; more where a
     * mask spares reads (a causal kernel need not read the keys it masks), which a kernel may skip and so beat the copy
     * by that much more.
     */
    static String violation(Stats candidate, Stats copy, long bytes, double copyOverLeast, DeviceInfo device) {
        double floorLow = copy.ciLowMs() / candidate.ciHighMs();
        if (copy.medianMs() >= MIN_COPY_MS && floorLow > FLOOR_LIMIT * copyOverLeast) {
            return String.format(Locale.ROOT, "%.1f us, %.2fx faster than a plain copy of the same bytes (%.1f us) "
                    + "even at the ends of both confidence intervals; a correct softmax reads and writes what the "
                    + "copy does", candidate.medianMs() * 1000, copy.medianMs() / candidate.medianMs(),
                    copy.medianMs() * 1000);
        }
        double peakBytesPerMs = peakBytesPerMs(device);
        if (peakBytesPerMs > 0) {
            double readMs = bytes / peakBytesPerMs;
            if (candidate.ciHighMs() * (1 + MeasurementMethod.NOISE_BOUND) < readMs) {
                return String.format(Locale.ROOT, "%.2f us, less than reading x once at the device's peak memory "
                        + "bandwidth takes (%.2f us for %d bytes)", candidate.medianMs() * 1000, readMs * 1000, bytes);
            }
        }
        return null;
    }

    /** Peak device-memory bandwidth from the reported memory clock and bus width (double data rate); 0 if unknown. */
    static double peakBytesPerMs(DeviceInfo device) {
        return (double) device.memoryClockMHz() * 1e3 * 2 * device.memoryBusBits() / 8;
    }
}
