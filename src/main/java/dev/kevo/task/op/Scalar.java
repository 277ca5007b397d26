package dev.kevo.task.op;

import java.util.List;

/**
 * A runtime float argument of an operator (masked_softmax's {@code scale}), passed by name as a plan passes a tensor.
 * Its value is drawn for every input case from the case's seed among {@code values}, so a kernel that hard-codes
 * one is wrong on the others, and a replayed input seed replays it.
 */
public record Scalar(String name, List<Float> values) {

    public Scalar {
        if (!name.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("scalar name '" + name + "' is not a lower-case identifier");
        }
        values = List.copyOf(values);
        if (values.isEmpty()) {
            throw new IllegalArgumentException("scalar " + name + " has no values to draw");
        }
    }

    /**
     * Whether kevo judges it at positive values only: then an export takes no other (a scale of 0 or below would make
     * masked_softmax's -inf inputs NaN, which kevo never checked).
     */
    public boolean positive() {
        return values.stream().allMatch(v -> v > 0);
    }

    /** The value of the input case whose inputs derive from {@code caseSeed}. */
    public float valueFor(long caseSeed) {
        // splitmix64's finaliser, so that neighbouring case seeds draw independently
        long z = caseSeed ^ name.hashCode() * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return values.get((int) Long.remainderUnsigned(z, values.size()));
    }
}
