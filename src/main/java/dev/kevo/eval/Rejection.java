package dev.kevo.eval;

import dev.kevo.data.Verdict;

/** Thrown inside the evaluator to stop work on a candidate with a verdict; never escapes it. */
final class Rejection extends RuntimeException {
    private final Verdict verdict;
    private final boolean contextLost;

    Rejection(Verdict verdict, String detail) {
        this(verdict, detail, false);
    }

    /** {@code contextLost}: the fault was sticky, the CUDA context is unusable for anything after it. */
    Rejection(Verdict verdict, String detail, boolean contextLost) {
        super(detail, null, false, false);
        this.verdict = verdict;
        this.contextLost = contextLost;
    }

    boolean contextLost() {
        return contextLost;
    }

    Verdict verdict() {
        return verdict;
    }
}
