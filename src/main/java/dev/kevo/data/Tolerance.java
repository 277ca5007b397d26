package dev.kevo.data;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;

/**
 * When a float32 softmax counts as right, judged against a float64 reference.
 *
 * @param relativeL2 bound on ||y - ref||_2 / ||ref||_2 over a whole case
 * @param absolute per element: |y - ref| must stay under {@code absolute + relative * |ref|}
 * @param relative see {@code absolute}
 */
@JsonDeserialize(builder = Tolerance.Builder.class)
public record Tolerance(double relativeL2, double absolute, double relative) {

    public Tolerance {
        if (!(relativeL2 > 0 && absolute >= 0 && relative >= 0)) {
            throw new IllegalArgumentException("tolerances must be positive");
        }
    }

    /** The defaults ({@link Defaults}), each key then set by name; YAML binds through it too. */
    public static Builder builder() {
        return new Builder();
    }

    public static Tolerance defaults() {
        return builder().build();
    }

    public boolean elementOk(double got, double ref) {
        return Math.abs(got - ref) <= absolute + relative * Math.abs(ref);
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private double relativeL2 = Defaults.TOLERANCE_RELATIVE_L2;
        private double absolute = Defaults.TOLERANCE_ABSOLUTE;
        private double relative = Defaults.TOLERANCE_RELATIVE;

        private Builder() {
        }

        public Builder relativeL2(double value) {
            relativeL2 = value;
            return this;
        }

        public Builder absolute(double value) {
            absolute = value;
            return this;
        }

        public Builder relative(double value) {
            relative = value;
            return this;
        }

        public Tolerance build() {
            return new Tolerance(relativeL2, absolute, relative);
        }
    }
}
