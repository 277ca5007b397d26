package dev.kevo.data;

import java.util.Arrays;

/**
 * A timing sample summarised the way it is reported: the median with the 95% confidence interval of the
 * median (order statistics, no normality assumed), the interquartile range, and the count.
 */
public record Stats(int n, double medianMs, double ciLowMs, double ciHighMs, double p25Ms, double p75Ms,
                    double minMs) {

    public static Stats of(double[] samplesMs) {
        if (samplesMs.length == 0) {
            throw new IllegalArgumentException("no samples");
        }
        double[] s = samplesMs.clone();
        Arrays.sort(s);
        int n = s.length;
        // Ranks n/2 -+ 1.96 sqrt(n)/2 bound the median with about 95% confidence.
        double half = 1.96 * Math.sqrt(n) / 2;
        int lo = (int) Math.max(0, Math.floor(n / 2.0 - half));
        int hi = (int) Math.min(n - 1, Math.ceil(n / 2.0 + half) - 1);
        return new Stats(n, quantile(s, 0.5), s[lo], s[Math.max(hi, lo)], quantile(s, 0.25), quantile(s, 0.75), s[0]);
    }

    private static double quantile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int i = (int) Math.floor(pos);
        int j = Math.min(i + 1, sorted.length - 1);
        return sorted[i] + (pos - i) * (sorted[j] - sorted[i]);
    }

    /** Half-width of the median's confidence interval relative to the median: the stop rule's measure. */
    public double relativeCi() {
        return (ciHighMs - ciLowMs) / 2 / medianMs;
    }

    /** Interquartile range relative to the median: the spread a table shows. */
    public double relativeSpread() {
        return (p75Ms - p25Ms) / medianMs;
    }
}
