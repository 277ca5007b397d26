package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Random;
import org.junit.jupiter.api.Test;

class TimingShapeTest {

    private static double[] noisy(int n, double median, double relativeNoise, long seed) {
        Random r = new Random(seed);
        double[] s = new double[n];
        for (int i = 0; i < n; i++) {
            s[i] = median * (1 + relativeNoise * r.nextGaussian());
        }
        return s;
    }

    @Test
    void anHonestSampleWithAFewSlowOutliersIsClean() {
        double[] s = noisy(200, 0.068, 0.02, 1);
        s[3] = 0.2;
        s[50] = 0.15;
        assertNull(TimingShape.flag(s));
    }

    @Test
    void aKernelThatSkipsEveryOtherLaunchIsBimodal() {
        double[] s = noisy(40, 0.068, 0.02, 2);
        for (int i = 0; i < s.length; i += 2) {
            s[i] = 0.004 + 0.0002 * (i % 3);
        }
        assertEquals("bimodal", TimingShape.flag(s));
    }

    @Test
    void aSpreadFarWiderThanHonestKernelsShowIsWide() {
        double[] s = new double[41];
        for (int i = 0; i < s.length; i++) {
            s[i] = 0.01 * Math.pow(1.04, i);  // smooth, no gap, but IQR ~ 1.2x the median
        }
        assertEquals("wide", TimingShape.flag(s));
    }

    @Test
    void tooFewSamplesAreNotJudged() {
        assertNull(TimingShape.flag(new double[] {0.001, 0.1, 0.1}));
    }
}
