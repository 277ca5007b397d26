package dev.kevo.eval;

/**
 * What each input seed derived from a candidate's one recorded seed is for. Each use draws its salts from a range of
 * its own, so no two uses share inputs: a stale-result check on inputs a timed launch already saw would prove
 * nothing. The ranges are part of what a recorded seed means; renumbering them changes every replayed input.
 */
enum InputSalt {
    /** The correctness check of one input case, salted by the case's ordinal. */
    CHECK_CASE(0),
    /** The input sets the timed launches rotate through, salted by the set. */
    TIMING_SET(1000),
    /** The check after all timed launches of a shape, on inputs none of them saw (one salt). */
    AFTER_TIMING(2000),
    /** The audit of one timing attempt's launches, salted by the attempt: from the timing secret, never the input seed. */
    TIMING_AUDIT(3000),
    /** The draw of a fresh shape, by its place in the list (one salt): from the timing secret, never the input seed. */
    FRESH_SHAPE(4000),
    /** The draw of a held-out shape, likewise. */
    HELD_OUT_SHAPE(5000),
    /**
     * The check of one input case on a shape beyond the suite, salted by the case's ordinal; the shape index is
     * {@link BeyondSuiteCheck#shapeIndex} (the fresh, held-out and at-scale shapes apart).
     */
    BEYOND_CASE(6000),
    /** The check of a plan in plain buffers of its smallest suite shape, salted by the plan's place in the list. */
    PLAIN_CASE(7000),
    /**
     * The check of one input case on a shape whose plan is resolved for another multiprocessor count, salted by the
     * case's ordinal; the shape index numbers the (count, shape) pairs.
     */
    OTHER_SMS_CASE(8000),
    /**
     * The check of one input case on the few-row twin of a shape beyond the suite, whose plan had not had every case,
     * salted by the case's ordinal; the shape index is the drawn shape's.
     */
    TWIN_CASE(9000);

    /** Salts one use may take: more than input cases, input sets or timing attempts there are. */
    static final int SPAN = 1000;

    private final int base;

    InputSalt(int base) {
        this.base = base;
    }

    /** The seed of the {@code index}-th input of this use on shape {@code shapeIndex}. */
    long derive(long seed, int shapeIndex, int index) {
        if (index < 0 || index >= SPAN) {
            throw new IllegalArgumentException(name() + " salt " + index + " is outside [0, " + SPAN + ")");
        }
        return SplitMix.derive(seed, shapeIndex, base + index);
    }
}
