package dev.kevo.eval;

import dev.kevo.data.ShapeResult;
import dev.kevo.data.Shape;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * What the checks beyond the suite found ({@link dev.kevo.data.BeyondSuite}).
 *
 * @param fresh the fresh shapes checked, in the order drawn
 * @param atScale the held-out shapes, then the at-scale one; null when not asked for
 * @param note why the at-scale shape was not judged; null when it was, or was not asked for
 * @param failedLabel how the rejection names a failure that a kind of check of its own found (a plan resolved for
 *     another multiprocessor count, a plan probe), last in {@code atScale}; null otherwise
 */
record BeyondSuiteResults(List<ShapeResult> fresh, List<ShapeResult> atScale, String note, String failedLabel) {
    static final BeyondSuiteResults NONE = new BeyondSuiteResults(List.of(), null, null);

    BeyondSuiteResults(List<ShapeResult> fresh, List<ShapeResult> atScale, String note) {
        this(fresh, atScale, note, null);
    }
    static final String FRESH = "fresh";
    static final String HELD_OUT = "held-out";
    static final String AT_SCALE = "at-scale";
    /** A shape of a plan no other check reached ({@link PlanProbe}). */
    static final String PROBE = "plan-probe";

    /** How a rejection names a shape of one kind: {@code fresh shape 1x77}. */
    static String label(String kind, Object shape) {
        return kind + " shape " + shape;
    }

    ShapeResult firstFailed() {
        return all().filter(s -> !s.verdict().passed()).findFirst().orElse(null);
    }

    /** {@code failed}'s kind and shape, as the candidate's rejection names it. */
    String label(ShapeResult failed) {
        if (failedLabel != null && atScale != null && failed == atScale.getLast()) {
            return failedLabel;
        }
        String kind = fresh.contains(failed) ? FRESH : failed.regime() != null ? HELD_OUT : AT_SCALE;
        return label(kind, failed.shape());
    }

    /** The most elements of any of these shapes or {@code suite}'s: what a passing candidate was judged on. */
    long judgedElements(List<ShapeResult> suite) {
        return Stream.concat(suite.stream(), all()).mapToLong(s -> Shape.parse(s.shape()).elements()).max()
                .orElse(0);
    }

    /** Every shape checked beyond the suite. */
    Stream<ShapeResult> all() {
        return Stream.concat(fresh.stream(), Stream.ofNullable(atScale).flatMap(List::stream)).filter(Objects::nonNull);
    }
}
