package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.DeviceInfo;
import dev.kevo.data.Stats;
import org.junit.jupiter.api.Test;

class MemoryBoundTest {
    private static final DeviceInfo H100 = DeviceInfo.builder().name("NVIDIA H100 80GB HBM3").ccMajor(9).sms(132)
            .l2Bytes(52428800).memoryBytes(85017493504L).clockMHz(1980).memoryClockMHz(2619).memoryBusBits(5120)
            .build();

    private static Stats around(double medianMs, double relativeHalfWidth) {
        return new Stats(40, medianMs, medianMs * (1 - relativeHalfWidth), medianMs * (1 + relativeHalfWidth),
                medianMs, medianMs, medianMs);
    }

    @Test
    void theH100PeakBandwidthIsItsRated3_35TBPerSecond() {
        double tbPerSecond = MemoryBound.peakBytesPerMs(H100) * 1000 / 1e12;
        assertTrue(Math.abs(tbPerSecond - 3.35) < 0.01, "peak " + tbPerSecond);
    }

    @Test
    void theLaunchSkipperOfIssue15IsFasterThanMemory() {
        // 4096x4096: 11.9 us reported, the copy 43 us.
        String why = MemoryBound.violation(around(0.0119, 0.2), around(0.043, 0.01), 4096L * 4096 * 4, H100);
        assertNotNull(why);
        assertTrue(why.contains("faster than a plain copy"), why);
    }

    @Test
    void theFastestHonestKernelSeenOnTheH100Passes() {
        // 1823x781: an honest kernel at 8.48 us beside an 11.4 us copy (floor 1.35).
        assertNull(MemoryBound.violation(around(0.00848, 0.01), around(0.0114, 0.01), 1823L * 781 * 4, H100));
    }

    @Test
    void onATinyShapeBeatingTheCopysLaunchLatencyIsNotImpossible() {
        // 32x128: the copy takes 4.4 us, nearly all of it launch latency; a 2.8 us kernel is fast, not a cheat.
        assertNull(MemoryBound.violation(around(0.0028, 0.01), around(0.0044, 0.01), 32L * 128 * 4, H100));
    }

    @Test
    void aTimeBelowReadingTheInputAtPeakBandwidthIsImpossibleEvenBesideASlowCopy() {
        // 4096x12288 (201 MB): 40 us would need 5 TB/s of reads; the copy is made slow so that only the bandwidth rule
        // can fire.
        String why = MemoryBound.violation(around(0.040, 0.01), around(0.050, 0.01), 4096L * 12288 * 4, H100);
        assertNotNull(why);
        assertTrue(why.contains("peak memory bandwidth"), why);
    }

    /**
     * A kernel that skips what a mask spares (a causal row's hidden keys, a padded batch entry's) moves less than the
     * floor's copy: it may beat the copy by as much more as the copy moves beyond the least any correct kernel moves.
     */
    @Test
    void aMaskThatSparesReadsWidensTheRoomBeyondTheCopy() {
        Stats copy = around(0.043, 0.01);
        Stats twiceAsFast = around(0.0215, 0.01);
        assertNotNull(MemoryBound.violation(twiceAsFast, copy, 1L << 20, 1.0, H100), "every byte must move: impossible");
        assertNull(MemoryBound.violation(twiceAsFast, copy, 1L << 20, 2.0, H100), "half the bytes spared: honest");
        assertNotNull(MemoryBound.violation(around(0.009, 0.01), copy, 1L << 20, 2.0, H100), "4.8x is not");
    }
}
