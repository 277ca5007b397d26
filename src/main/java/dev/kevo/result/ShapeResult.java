package dev.kevo.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.kevo.task.Shape;

/**
 * One shape of one candidate.
 *
 * @param plan 1-based index of the plan that ran
 * @param detail why a shape failed, e.g. which input case and the first bad element
 * @param relativeL2 worst ||y - ref|| / ||ref|| over the input cases
 * @param candidate, baseline, copy timings; null when the shape was not timed. {@code copy} is the faster of two
 *     plain copies of the same bytes (one read, one write), timed side by side: {@code cuMemcpyDtoD} and kevo's own
 *     copy kernel. Neither wins at every size (the README's measured results say where), so the floor is the
 *     faster of the two.
 * @param copyBy which copy was faster: {@code memcpy} or {@code kernel}
 * @param speedup baseline median over candidate median
 * @param floorFraction the copy's median over the candidate's
 * @param coldMs a first launch after load, what a naive harness would have reported (only with --cold)
 * @param baselineRelativeL2 the baseline's own worst relative L2 error on this shape, measured against the same
 *     float64 reference when the baseline is a vendor library (cuDNN), which is never rejected; null otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShapeResult(String shape, Verdict verdict, String detail, Integer plan, Double relativeL2,
                          Double maxAbsError, Stats candidate, Stats baseline, Stats copy, String copyBy,
                          Double speedup,
                          Double floorFraction, Double coldMs, Double baselineRelativeL2) {

    /** A shape whose every input case passed the check; timing comes later ({@link #withTiming}). */
    public static ShapeResult checked(Shape shape, int plan, double relativeL2, double maxAbsError, Double coldMs) {
        return new ShapeResult(shape.toString(), Verdict.PASS, null, plan, relativeL2, maxAbsError, null, null, null,
                null, null, null, coldMs, null);
    }

    public static ShapeResult failed(Shape shape, Verdict verdict, String detail) {
        return new ShapeResult(shape.toString(), verdict, detail, null, null, null, null, null, null, null, null,
                null, null, null);
    }

    /** The timed medians, with the speedup and floor fraction derived from them here and nowhere else. */
    public ShapeResult withTiming(Stats candidate, Stats baseline, Stats copy, String copyBy) {
        return new ShapeResult(shape, verdict, detail, plan, relativeL2, maxAbsError, candidate, baseline, copy, copyBy,
                baseline.medianMs() / candidate.medianMs(), copy.medianMs() / candidate.medianMs(), coldMs,
                baselineRelativeL2);
    }

    /** A shape that passed its check but failed after timing: its timings stay, as evidence. */
    public ShapeResult withVerdict(Verdict newVerdict, String newDetail) {
        return new ShapeResult(shape, newVerdict, newDetail, plan, relativeL2, maxAbsError, candidate, baseline, copy,
                copyBy, speedup, floorFraction, coldMs, baselineRelativeL2);
    }

    /** With the baseline's own error on this shape recorded. */
    public ShapeResult withBaselineRelativeL2(double error) {
        return new ShapeResult(shape, verdict, detail, plan, relativeL2, maxAbsError, candidate, baseline, copy,
                copyBy, speedup, floorFraction, coldMs, error);
    }
}
