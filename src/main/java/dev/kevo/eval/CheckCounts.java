package dev.kevo.eval;

/** What kevo_compare found for one input case (the KevoCheck struct of trusted.cu). */
record CheckCounts(long unwritten, long nonFinite, long violations, long inputChanged, long firstBad,
                   double errorSquared, double referenceSquared, double maxAbsError) {

    static final int BYTES = 64;

    static CheckCounts fromWords(long[] w) {
        return new CheckCounts(w[0], w[1], w[2], w[3], w[4], Double.longBitsToDouble(w[5]),
                Double.longBitsToDouble(w[6]), Double.longBitsToDouble(w[7]));
    }

    double relativeL2() {
        return referenceSquared > 0 ? Math.sqrt(errorSquared / referenceSquared) : 0;
    }
}
