package dev.kevo.data;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.util.List;

/**
 * Shapes a candidate is checked on (for correctness, untimed) besides its suite's, so that passing cannot rest on
 * the suite's shapes alone. Each is drawn from the evaluation's timing secret, which a kernel cannot predict and a
 * replay with {@code --timing-secret} reproduces.
 *
 * @param fresh one shape per entry drawn for every evaluation, from that regime (a regime may repeat); empty: none
 * @param heldOut champion confirmation and {@code kevo eval --at-scale}: this many more, drawn the same way (cycling
 *     through {@link Defaults#HELD_OUT_ONLY}, then {@code fresh}, or the default fresh regimes when it is empty) but
 *     apart from the fresh ones
 * @param atScale champion confirmation and {@code kevo eval --at-scale}: one shape past 2^31 elements
 *     ({@code ROWSxCOLS}), in buffers of its own; then, for every plan reached, one such shape that reaches it with
 *     columns a multiple of 4 and one with odd columns, where there are
 * @param smCounts champion confirmation and {@code kevo eval --at-scale}: every plan again with its expressions
 *     resolved for each of these multiprocessor counts (only the launch changes, on the same GPU), where it can launch
 *     here; an export runs a plan only at the counts it was judged at
 */
@JsonDeserialize(builder = BeyondSuite.Builder.class)
public record BeyondSuite(List<ShapeRegime> fresh, int heldOut, String atScale, List<Integer> smCounts) {

    /** Shapes one evaluation may draw of a kind: the salts an evaluation derives from its secret allow no more. */
    public static final int MAX_DRAWN = 999;
    /** More multiprocessors than any GPU has is a typing mistake, not a device. */
    private static final int MAX_SMS = 4096;

    public BeyondSuite {
        fresh = List.copyOf(fresh);
        smCounts = List.copyOf(smCounts);
        if (smCounts.stream().anyMatch(c -> c == null || c < 1 || c > MAX_SMS)) {
            throw new IllegalArgumentException("sm_counts: multiprocessor counts from 1 to " + MAX_SMS + ", got "
                    + smCounts);
        }
        if (fresh.size() > MAX_DRAWN || heldOut < 0 || heldOut > MAX_DRAWN) {
            throw new IllegalArgumentException("fresh and held_out: 0 to " + MAX_DRAWN + " shapes");
        }
        if (atScale == null || !atScale.matches("[1-9][0-9]{0,9}x[1-9][0-9]{0,9}")
                || Long.parseLong(atScale.split("x")[0]) > Integer.MAX_VALUE
                || Long.parseLong(atScale.split("x")[1]) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("at_scale: expected ROWSxCOLS with each at most 2^31-1, got "
                    + atScale);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    public static BeyondSuite defaults() {
        return builder().build();
    }

    /** The regimes the held-out shapes cycle through. */
    public List<ShapeRegime> heldOutRegimes() {
        // The regimes only held-out shapes reach come first, so that a few held-out shapes reach them too.
        List<ShapeRegime> cycle = new java.util.ArrayList<>(Defaults.HELD_OUT_ONLY);
        (fresh.isEmpty() ? Defaults.FRESH_SHAPES : fresh).stream()
                .filter(r -> !Defaults.HELD_OUT_ONLY.contains(r)).forEach(cycle::add);
        return java.util.stream.IntStream.range(0, heldOut).mapToObj(i -> cycle.get(i % cycle.size())).toList();
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private List<ShapeRegime> fresh = Defaults.FRESH_SHAPES;
        private int heldOut = Defaults.HELD_OUT_SHAPES;
        private String atScale = Defaults.AT_SCALE_SHAPE;
        private List<Integer> smCounts = Defaults.JUDGED_SM_COUNTS;

        private Builder() {
        }

        public Builder fresh(List<ShapeRegime> value) {
            fresh = value;
            return this;
        }

        public Builder heldOut(int value) {
            heldOut = value;
            return this;
        }

        public Builder atScale(String value) {
            atScale = value;
            return this;
        }

        public Builder smCounts(List<Integer> value) {
            smCounts = value;
            return this;
        }

        public BeyondSuite build() {
            return new BeyondSuite(fresh, heldOut, atScale, smCounts);
        }
    }
}
