package dev.kevo.eval;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.kevo.task.Shape;

/**
 * One shape of one candidate.
 *
 * @param plan 1-based index of the plan that ran
 * @param detail why a shape failed, e.g. which input case and the first bad element
 * @param relativeL2 worst ||y - ref|| / ||ref|| over the input cases
 * @param candidate, baseline, copy timings; null when the shape was not timed
 * @param speedup baseline median over candidate median
 * @param floorFraction median of a plain copy of the same bytes (one read, one write) over the candidate's
 * @param coldMs a first launch after load, what a naive harness would have reported (only with --cold)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShapeResult(String shape, Verdict verdict, String detail, Integer plan, Double relativeL2,
                          Double maxAbsError, Stats candidate, Stats baseline, Stats copy, Double speedup,
                          Double floorFraction, Double coldMs) {

    public static ShapeResult failed(Shape shape, Verdict verdict, String detail) {
        return new ShapeResult(shape.toString(), verdict, detail, null, null, null, null, null, null, null, null, null);
    }

    public ShapeResult withTiming(Stats candidate, Stats baseline, Stats copy, Double coldMs) {
        return new ShapeResult(shape, verdict, detail, plan, relativeL2, maxAbsError, candidate, baseline, copy,
                baseline.medianMs() / candidate.medianMs(), copy.medianMs() / candidate.medianMs(), coldMs);
    }

    public ShapeResult withVerdict(Verdict newVerdict, String newDetail) {
        return new ShapeResult(shape, newVerdict, newDetail, plan, relativeL2, maxAbsError, candidate, baseline, copy,
                speedup, floorFraction, coldMs);
    }
}
