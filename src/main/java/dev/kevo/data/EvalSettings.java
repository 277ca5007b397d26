package dev.kevo.data;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import dev.kevo.KevoException;
import java.nio.file.Path;
import java.util.List;

/**
 * How candidates are judged: suite, baseline, operator and dtypes by default, the input cases, the tolerances, the
 * measurement method and the shapes checked beyond the suite. Read from config/eval.yaml, and saved in the same shape
 * in every campaign folder: a key absent from the file (or from a folder written before the key existed) takes its
 * {@link Defaults} value.
 */
@JsonDeserialize(builder = EvalSettings.Builder.class)
public record EvalSettings(String suite, String baseline, String op, Precision dtype, List<InputCase> cases, Tolerance tolerance,
                           MeasurementMethod measurement, PhaseLimits limits, LaunchChecks launchChecks,
                           BeyondSuite beyondSuite, SanitizeWhen sanitize) {

    public EvalSettings {
        cases = List.copyOf(cases);
        if (cases.isEmpty()) {
            throw new IllegalArgumentException("cases: list at least one input case");
        }
    }

    /** The defaults ({@link Defaults}), each key then set by name; YAML binds through it too. */
    public static Builder builder() {
        return new Builder();
    }

    public static EvalSettings defaults() {
        return builder().build();
    }

    public Builder toBuilder() {
        return builder().suite(suite).baseline(baseline).op(op).dtype(dtype).cases(cases).tolerance(tolerance).measurement(measurement)
                .limits(limits).launchChecks(launchChecks).beyondSuite(beyondSuite).sanitize(sanitize);
    }

    public EvalSettings withSuite(String name) {
        return toBuilder().suite(name).build();
    }

    public EvalSettings withBaseline(String name) {
        return toBuilder().baseline(name).build();
    }

    public EvalSettings withDtype(Precision value) {
        return toBuilder().dtype(value).build();
    }

    public static EvalSettings load(Path file) {
        try {
            return ConfigFiles.read(file, EvalSettings.class);
        } catch (IllegalArgumentException e) {
            throw KevoException.input(file + ": " + e.getMessage());
        }
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private String suite = Defaults.SUITE;
        private String baseline = Defaults.BASELINE;
        private String op = Defaults.OP;
        private Precision dtype = Defaults.DTYPE;
        private List<InputCase> cases = Defaults.CASES;
        /** Null: the operator's own ({@code Operator.tolerance()}), which a config's block replaces. */
        private Tolerance tolerance;
        private MeasurementMethod measurement = MeasurementMethod.defaults();
        private PhaseLimits limits = PhaseLimits.defaults();
        private LaunchChecks launchChecks = LaunchChecks.defaults();
        private BeyondSuite beyondSuite = BeyondSuite.defaults();
        private SanitizeWhen sanitize = Defaults.SANITIZE;

        private Builder() {
        }

        public Builder suite(String value) {
            suite = value;
            return this;
        }

        public Builder baseline(String value) {
            baseline = value;
            return this;
        }

        /** The operator's id ({@code softmax}, the default and what every folder before the key judged). */
        public Builder op(String value) {
            op = value;
            return this;
        }

        public Builder dtype(Precision value) {
            dtype = value;
            return this;
        }

        public Builder cases(List<InputCase> value) {
            cases = value;
            return this;
        }

        public Builder tolerance(Tolerance value) {
            tolerance = value;
            return this;
        }

        public Builder measurement(MeasurementMethod value) {
            measurement = value;
            return this;
        }

        public Builder limits(PhaseLimits value) {
            limits = value;
            return this;
        }

        public Builder launchChecks(LaunchChecks value) {
            launchChecks = value;
            return this;
        }

        public Builder beyondSuite(BeyondSuite value) {
            beyondSuite = value;
            return this;
        }

        public Builder sanitize(SanitizeWhen value) {
            sanitize = value;
            return this;
        }

        public EvalSettings build() {
            return new EvalSettings(suite, baseline, op, dtype, cases, tolerance, measurement, limits, launchChecks,
                    beyondSuite, sanitize);
        }
    }
}
