package dev.kevo.data;

import java.util.List;
import java.util.stream.DoubleStream;

/**
 * A candidate's score over a suite, with its interval: the geometric mean of the per-shape speedups over the
 * baseline, and of the per-shape fractions of the memory floor.
 *
 * <p>The interval is the score's approximate 95% confidence interval as far as this evaluation's own timing noise
 * goes. Each shape's speedup is a ratio of two medians, the baseline's over the candidate's, and each median carries
 * its 95% interval ({@link Stats}); in logs the score is the mean of {@code ln b_i - ln c_i}, so each median's
 * interval is read as a normal error in log space (half its log-width over 1.96) and the errors, independent
 * samples, add in variance. What it cannot see is the variation between processes (a kernel settling in another
 * mode after a restart), which {@link MeasurementMethod#NOISE_BOUND} covers: two evaluations may differ by more than
 * their intervals suggest.
 *
 * @param speedup geometric mean of the per-shape speedups
 * @param ciLow lower end of the speedup's interval
 * @param ciHigh upper end of the speedup's interval
 * @param floorFraction geometric mean of the per-shape fractions of the memory floor
 */
public record Score(double speedup, double ciLow, double ciHigh, double floorFraction) {

    /** The two-sided 95% normal quantile, the same level as every median's interval. */
    private static final double Z95 = 1.96;

    /**
     * The score of timed shapes, every one of which passed.
     *
     * @throws IllegalArgumentException when a shape has no timing, or there are none
     */
    public static Score over(List<ShapeResult> shapes) {
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("no shapes to score");
        }
        double variance = 0;
        for (ShapeResult s : shapes) {
            if (s.candidate() == null || s.baseline() == null) {
                throw new IllegalArgumentException(s.shape() + ": not timed, so not scored");
            }
            variance += logVariance(s.baseline()) + logVariance(s.candidate());
        }
        double speedup = geometricMean(shapes.stream().mapToDouble(ShapeResult::speedup));
        double halfWidth = Z95 * Math.sqrt(variance) / shapes.size();
        return new Score(speedup, speedup * Math.exp(-halfWidth), speedup * Math.exp(halfWidth),
                geometricMean(shapes.stream().mapToDouble(ShapeResult::floorFraction)));
    }

    /** Variance of the log of a median, from its 95% interval. */
    private static double logVariance(Stats stats) {
        double sigma = (Math.log(stats.ciHighMs()) - Math.log(stats.ciLowMs())) / (2 * Z95);
        return sigma * sigma;
    }

    /** Through the mean of logs: a running product of thousands of factors would under- or overflow. */
    public static double geometricMean(DoubleStream values) {
        double[] v = values.toArray();
        double logSum = 0;
        for (double x : v) {
            logSum += Math.log(x);
        }
        return Math.exp(logSum / v.length);
    }
}
