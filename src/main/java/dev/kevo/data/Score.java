package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
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
 * <p>The floor fraction's interval comes the same way, from the copy's median and the candidate's.
 *
 * <p>A result stores its score flat, beside its other fields, under the names it always had ({@code score},
 * {@code scoreCiLow}, {@code scoreCiHigh}, {@code floorFraction}), so that every saved campaign, and every script
 * reading one, reads as before; the floor's interval was added beside them ({@code floorCiLow}, {@code floorCiHigh}).
 *
 * @param speedup geometric mean of the per-shape speedups
 * @param ciLow lower end of the speedup's interval; null in results saved before scores had one
 * @param ciHigh upper end of the speedup's interval; null as {@code ciLow}
 * @param floorFraction geometric mean of the per-shape fractions of the memory floor
 * @param floorCiLow lower end of the floor fraction's interval; null in results saved before it had one
 * @param floorCiHigh upper end of the floor fraction's interval; null as {@code floorCiLow}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Score(@JsonProperty("score") double speedup, @JsonProperty("scoreCiLow") Double ciLow,
                    @JsonProperty("scoreCiHigh") Double ciHigh, double floorFraction, Double floorCiLow,
                    Double floorCiHigh) {

    /** The two-sided 95% normal quantile, the same level as every median's interval. */
    private static final double Z95 = 1.96;

    /**
     * A score as a result stores it; null where it has none (a result that did not pass), so that a result read
     * back has no score rather than a score of zero.
     */
    @JsonCreator
    static Score read(@JsonProperty("score") Double speedup, @JsonProperty("scoreCiLow") Double ciLow,
                      @JsonProperty("scoreCiHigh") Double ciHigh, @JsonProperty("floorFraction") Double floorFraction,
                      @JsonProperty("floorCiLow") Double floorCiLow, @JsonProperty("floorCiHigh") Double floorCiHigh) {
        if (speedup == null) {
            return null;
        }
        if (floorFraction == null) {
            // Every result ever saved with a score has its floor fraction beside it.
            throw new IllegalArgumentException("a score of " + speedup + " without its floorFraction");
        }
        return new Score(speedup, ciLow, ciHigh, floorFraction, floorCiLow, floorCiHigh);
    }

    /** A score without intervals, as results saved before scores had one hold it (and test doubles make). */
    public static Score withoutInterval(double speedup, double floorFraction) {
        return new Score(speedup, null, null, floorFraction, null, null);
    }

    /**
     * The score of timed shapes, every one of which passed.
     *
     * @throws IllegalArgumentException when a shape has no timing, or there are none
     */
    public static Score over(List<ShapeResult> shapes) {
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("no shapes to score");
        }
        double speedupVariance = 0;
        double floorVariance = 0;
        for (ShapeResult s : shapes) {
            if (s.candidate() == null || s.baseline() == null || s.copy() == null) {
                throw new IllegalArgumentException(s.shape() + ": not timed, so not scored");
            }
            speedupVariance += logVariance(s.baseline()) + logVariance(s.candidate());
            floorVariance += logVariance(s.copy()) + logVariance(s.candidate());
        }
        double speedup = geometricMean(shapes.stream().mapToDouble(ShapeResult::speedup));
        double floor = geometricMean(shapes.stream().mapToDouble(ShapeResult::floorFraction));
        double speedupHalf = Z95 * Math.sqrt(speedupVariance) / shapes.size();
        double floorHalf = Z95 * Math.sqrt(floorVariance) / shapes.size();
        return new Score(speedup, speedup * Math.exp(-speedupHalf), speedup * Math.exp(speedupHalf),
                floor, floor * Math.exp(-floorHalf), floor * Math.exp(floorHalf));
    }

    /** Whether the speedup has its interval (not in results saved before scores had one). */
    @JsonIgnore
    public boolean hasInterval() {
        return ciLow != null && ciHigh != null;
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
