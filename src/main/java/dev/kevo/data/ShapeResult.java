package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One shape of one candidate. Stored as it is in every campaign record, so fields are only ever added; producers
 * build it through {@link #checked}, {@link #failed} and the {@code with} steps, never positionally.
 *
 * @param plan 1-based index of the plan that ran
 * @param detail why a shape failed, e.g. which input case and the first bad element
 * @param relativeL2 worst ||y - ref|| / ||ref|| over the input cases
 * @param candidate, baseline, copy timings; null when the shape was not timed. {@code copy} is the faster of two
 *     plain copies of the same bytes (one read, one write), timed side by side: {@code cuMemcpyDtoD} and kevo's own
 *     copy kernel. Neither wins at every size (docs/results.md says where), so the floor is the
 *     faster of the two.
 * @param copyBy which copy was faster: {@code memcpy} or {@code kernel}
 * @param speedup baseline median over candidate median
 * @param floorFraction the copy's median over the candidate's
 * @param coldMs a first launch after load, what a naive harness would have reported (only with --cold)
 * @param timingFlag null when the candidate's timing sample is one clean mode; {@code bimodal} or {@code wide}
 *     when it stayed so after being measured again: its median is then not a clean number
 * @param checkedLaunches how many of the candidate's timed launches had their output checked (chosen at random)
 * @param baselineRelativeL2 the baseline's own worst relative L2 error on this shape, measured against the same
 *     float64 reference when the baseline is a vendor library (cuDNN), which is never rejected; null otherwise
 * @param checkLaunchMs the slowest checked launch's time, the lesser of its wall time (with its synchronisation) and
 *     its GPU events' (so a pause of the host does not count); held against the timed median, it shows time a kernel
 *     spends only when checked
 * @param deterministic whether a second launch on one checked input wrote the same bits; null where not checked
 * @param regime for a shape drawn beyond the suite ({@link CandidateResult#freshShapes()}, the held-out ones), the
 *     regime it was drawn from; null for a suite shape and the at-scale one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ShapeResult(String shape, Verdict verdict, String detail, Integer plan, Double relativeL2,
                          Double maxAbsError, Stats candidate, Stats baseline, Stats copy, String copyBy,
                          Double speedup, Double floorFraction, Double coldMs, String timingFlag,
                          Integer checkedLaunches, Double baselineRelativeL2, Double checkLaunchMs,
                          Boolean deterministic, ShapeRegime regime) {

    /** A shape ({@code rowsxcols}) whose every input case passed the check; timing comes later ({@link #withTiming}). */
    public static ShapeResult checked(String shape, int plan, double relativeL2, double maxAbsError, Double coldMs) {
        Draft d = new Draft(shape, Verdict.PASS);
        d.plan = plan;
        d.relativeL2 = relativeL2;
        d.maxAbsError = maxAbsError;
        d.coldMs = coldMs;
        return d.build();
    }

    /** A shape whose plan ran with nothing measured: what the sanitizer pass reports it ran. */
    public static ShapeResult ran(String shape, int plan) {
        Draft d = new Draft(shape, Verdict.PASS);
        d.plan = plan;
        return d.build();
    }

    public static ShapeResult failed(String shape, Verdict verdict, String detail) {
        Draft d = new Draft(shape, verdict);
        d.detail = detail;
        return d.build();
    }

    /** What the checked launches showed besides their outputs: the slowest one's time, and whether a repeat matched. */
    public ShapeResult withCheckLaunches(double slowestMs, Boolean repeatsExactly) {
        Draft d = draft();
        d.checkLaunchMs = slowestMs;
        d.deterministic = repeatsExactly;
        return d.build();
    }

    /** The timed medians, with the speedup and floor fraction derived from them here and nowhere else. */
    public ShapeResult withTiming(Stats candidate, Stats baseline, Stats copy, String copyBy) {
        Draft d = draft();
        d.candidate = candidate;
        d.baseline = baseline;
        d.copy = copy;
        d.copyBy = copyBy;
        d.speedup = baseline.medianMs() / candidate.medianMs();
        d.floorFraction = copy.medianMs() / candidate.medianMs();
        return d.build();
    }

    /** What the timing of the candidate looked like: its flag (null: clean) and how many timed launches were checked. */
    public ShapeResult withTimingAudit(String flag, int checked) {
        Draft d = draft();
        d.timingFlag = flag;
        d.checkedLaunches = checked;
        return d.build();
    }

    /** A shape that passed its check but failed after timing: its timings stay, as evidence. */
    public ShapeResult withVerdict(Verdict newVerdict, String newDetail) {
        Draft d = draft();
        d.verdict = newVerdict;
        d.detail = newDetail;
        return d.build();
    }

    /** With the baseline's own error on this shape recorded. */
    public ShapeResult withBaselineRelativeL2(double error) {
        Draft d = draft();
        d.baselineRelativeL2 = error;
        return d.build();
    }

    /** A shape drawn beyond the suite, with the regime it was drawn from. */
    public ShapeResult withRegime(ShapeRegime drawnFrom) {
        Draft d = draft();
        d.regime = drawnFrom;
        return d.build();
    }

    private Draft draft() {
        Draft d = new Draft(shape, verdict);
        d.detail = detail;
        d.plan = plan;
        d.relativeL2 = relativeL2;
        d.maxAbsError = maxAbsError;
        d.candidate = candidate;
        d.baseline = baseline;
        d.copy = copy;
        d.copyBy = copyBy;
        d.speedup = speedup;
        d.floorFraction = floorFraction;
        d.coldMs = coldMs;
        d.timingFlag = timingFlag;
        d.checkedLaunches = checkedLaunches;
        d.baselineRelativeL2 = baselineRelativeL2;
        d.checkLaunchMs = checkLaunchMs;
        d.deterministic = deterministic;
        d.regime = regime;
        return d;
    }

    /** The one place the fields are listed in order: each step above changes only what it names. */
    private static final class Draft {
        private final String shape;
        private Verdict verdict;
        private String detail;
        private Integer plan;
        private Double relativeL2;
        private Double maxAbsError;
        private Stats candidate;
        private Stats baseline;
        private Stats copy;
        private String copyBy;
        private Double speedup;
        private Double floorFraction;
        private Double coldMs;
        private String timingFlag;
        private Integer checkedLaunches;
        private Double baselineRelativeL2;
        private Double checkLaunchMs;
        private Boolean deterministic;
        private ShapeRegime regime;

        private Draft(String shape, Verdict verdict) {
            this.shape = shape;
            this.verdict = verdict;
        }

        private ShapeResult build() {
            return new ShapeResult(shape, verdict, detail, plan, relativeL2, maxAbsError, candidate, baseline, copy,
                    copyBy, speedup, floorFraction, coldMs, timingFlag, checkedLaunches, baselineRelativeL2,
                    checkLaunchMs, deterministic, regime);
        }
    }
}
