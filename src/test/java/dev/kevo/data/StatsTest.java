package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StatsTest {

    private static double[] range(int n) {
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = i + 1;
        }
        return v;
    }

    @Test
    void fiveSamples() {
        double[] samples = {5, 1, 4, 2, 3};
        Stats s = Stats.of(samples);
        assertEquals(5, s.n());
        assertEquals(3.0, s.medianMs());
        assertEquals(2.0, s.p25Ms());
        assertEquals(4.0, s.p75Ms());
        assertEquals(1.0, s.minMs());
        // ranks floor(2.5 - 1.96 sqrt(5) / 2) = 0 and ceil(2.5 + 2.19) - 1 = 4: the whole sample
        assertEquals(1.0, s.ciLowMs());
        assertEquals(5.0, s.ciHighMs());
        assertEquals(2.0 / 3.0, s.relativeCi(), 1e-12);
        assertEquals(2.0 / 3.0, s.relativeSpread(), 1e-12);
        assertArrayEquals(new double[] {5, 1, 4, 2, 3}, samples, "the caller's array is not sorted in place");
    }

    @Test
    void evenCountInterpolates() {
        Stats s = Stats.of(new double[] {4, 1, 3, 2});
        assertEquals(2.5, s.medianMs());
        assertEquals(1.75, s.p25Ms());
        assertEquals(3.25, s.p75Ms());
        assertEquals(1.0, s.ciLowMs());
        assertEquals(4.0, s.ciHighMs());
    }

    @Test
    void hundredSamples() {
        Stats s = Stats.of(range(100));
        assertEquals(50.5, s.medianMs());
        assertEquals(25.75, s.p25Ms());
        assertEquals(75.25, s.p75Ms());
        // half = 1.96 * 10 / 2 = 9.8: ranks floor(40.2) = 40 and ceil(59.8) - 1 = 59, i.e. values 41 and 60
        assertEquals(41.0, s.ciLowMs());
        assertEquals(60.0, s.ciHighMs());
        assertEquals(9.5 / 50.5, s.relativeCi(), 1e-12);
        assertTrue(s.ciLowMs() <= s.medianMs() && s.medianMs() <= s.ciHighMs());
    }

    @Test
    void oneSample() {
        Stats s = Stats.of(new double[] {7});
        assertEquals(1, s.n());
        assertEquals(7.0, s.medianMs());
        assertEquals(7.0, s.ciLowMs());
        assertEquals(7.0, s.ciHighMs());
        assertEquals(0.0, s.relativeCi());
    }

    @Test
    void confidenceIntervalShrinksWithMoreSamples() {
        // the same distribution (evenly spaced quantiles of [1, 2]) sampled ever more finely
        double previous = Double.POSITIVE_INFINITY;
        for (int n : new int[] {10, 40, 160, 640, 2560}) {
            double[] v = new double[n];
            for (int i = 0; i < n; i++) {
                v[i] = 1 + (i + 0.5) / n;
            }
            Stats s = Stats.of(v);
            assertEquals(1.5, s.medianMs(), 1e-12);
            assertTrue(s.relativeCi() < previous, "n=" + n + ": " + s.relativeCi() + " vs " + previous);
            previous = s.relativeCi();
        }
        // about 1.96 / sqrt(n) * (half-width of the middle) / median: under 2% at n = 2560
        assertTrue(previous < 0.02, "" + previous);
    }

    @Test
    void outliersMoveTheMeanNotTheMedian() {
        double[] v = range(21);
        Stats clean = Stats.of(v);
        v[20] = 1e6;
        Stats noisy = Stats.of(v);
        assertEquals(clean.medianMs(), noisy.medianMs());
        assertEquals(clean.ciLowMs(), noisy.ciLowMs());
        assertEquals(clean.ciHighMs(), noisy.ciHighMs());
    }

    @Test
    void noSamples() {
        assertThrows(IllegalArgumentException.class, () -> Stats.of(new double[0]));
    }
}
