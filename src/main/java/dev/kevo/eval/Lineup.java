package dev.kevo.eval;

import java.util.List;
import java.util.function.Function;

/**
 * The four things timed side by side on one shape, by role rather than by position, and the order the timer
 * interleaves them in: baseline, candidate, the driver's memcpy, kevo's copy kernel.
 */
record Lineup<T>(T baseline, T candidate, T memcpy, T copyKernel) {

    List<T> inTimingOrder() {
        return List.of(baseline, candidate, memcpy, copyKernel);
    }

    /** The roles of values given in {@link #inTimingOrder()}'s order. */
    static <T> Lineup<T> ofTimingOrder(List<T> values) {
        if (values.size() != 4) {
            throw new IllegalArgumentException("a lineup has 4 roles, not " + values.size());
        }
        return new Lineup<>(values.get(0), values.get(1), values.get(2), values.get(3));
    }

    <R> Lineup<R> map(Function<? super T, ? extends R> f) {
        return new Lineup<>(f.apply(baseline), f.apply(candidate), f.apply(memcpy), f.apply(copyKernel));
    }
}
