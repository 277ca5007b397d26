package dev.kevo.eval;

import dev.kevo.data.Tolerance;

/** What kevo_compare found for one input case (the KevoCheck struct of harness.cu). */
record CheckCounts(long unwritten, long nonFinite, long violations, long inputChanged, long firstBad,
                   double errorSquared, double referenceSquared, double maxAbsError, double roundingSquared) {

    static final int BYTES = 72;
    /**
     * How many times the best answer's rounding error a case's relative L2 error may add to the tolerance: a kernel
     * that rounds its float result to nearest even lands at about 1.0, one that truncates at about 2.
     */
    static final double ROUNDING_ALLOWANCE = 1.25;

    static CheckCounts fromWords(long[] w) {
        return new CheckCounts(w[0], w[1], w[2], w[3], w[4], Double.longBitsToDouble(w[5]),
                Double.longBitsToDouble(w[6]), Double.longBitsToDouble(w[7]), Double.longBitsToDouble(w[8]));
    }

    double relativeL2() {
        return referenceSquared > 0 ? Math.sqrt(errorSquared / referenceSquared) : 0;
    }

    /**
     * The relative L2 error of the best answer y's type can hold: the reference rounded to it. Negligible in float32;
     * in bf16 or fp16 it is most of what a correct kernel's error can be.
     */
    double roundingRelativeL2() {
        return referenceSquared > 0 ? Math.sqrt(roundingSquared / referenceSquared) : 0;
    }

    /**
     * The relative L2 error beyond what y's type allows a correct answer ({@link #ROUNDING_ALLOWANCE} times the rounded
     * reference's), never below 0: what a case's relative L2 is held to the tolerance by. The relative L2 itself in
     * float32.
     */
    double relativeL2BeyondRounding() {
        return Math.max(0, relativeL2() - ROUNDING_ALLOWANCE * roundingRelativeL2());
    }

    /** The relative L2 error this case may have: the tolerance, plus what y's type cannot avoid. */
    double relativeL2Bound(Tolerance tolerance) {
        return tolerance.relativeL2() + ROUNDING_ALLOWANCE * roundingRelativeL2();
    }

    /** Within the per-element and whole-case tolerances. */
    boolean withinTolerance(Tolerance tolerance) {
        return violations == 0 && relativeL2() <= relativeL2Bound(tolerance);
    }
}
