package dev.kevo.eval;

import java.util.Arrays;

/**
 * Whether a timing sample is one clean mode whose median means something. A kernel that is fast in some launches
 * and slow in others (skipped work, two settle states) gives two clusters or a wide spread; its median is then
 * not a clean number, and kevo measures the shape again, then flags it if it stays so.
 */
final class TimingShape {
    /**
     * Interquartile range over the median above which a sample is "wide". Honest kernels on the H100 reached 30%
     * on 32x128 (a 5 us kernel) and at most 11% elsewhere (bench/results/seeds-h100.json,
     * tolerance-calibration-h100.json); the launch-skipping kernel of issue 15 had 490%.
     */
    static final double WIDE_SPREAD = 0.5;
    /** A jump between neighbouring sorted samples, inside the middle half, above which a sample is "bimodal". */
    static final double BIMODAL_GAP = 1.5;

    private TimingShape() {
    }

    /** {@code "bimodal"}, {@code "wide"}, or null for a clean sample. */
    static String flag(double[] samples) {
        int n = samples.length;
        if (n < 4) {
            return null;
        }
        double[] s = samples.clone();
        Arrays.sort(s);
        for (int k = Math.max(1, (int) Math.ceil(n / 4.0)); k <= (3 * n) / 4 && k < n; k++) {
            if (s[k] > BIMODAL_GAP * s[k - 1]) {
                return "bimodal";
            }
        }
        double median = quantile(s, 0.5);
        return median > 0 && (quantile(s, 0.75) - quantile(s, 0.25)) / median > WIDE_SPREAD ? "wide" : null;
    }

    private static double quantile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int i = (int) Math.floor(pos);
        int j = Math.min(i + 1, sorted.length - 1);
        return sorted[i] + (pos - i) * (sorted[j] - sorted[i]);
    }
}
