package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.kevo.KevoException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * How candidates are judged: suite and baseline by default, the input cases, the tolerances and the
 * measurement method. Read from config/eval.yaml; every key is documented in the README.
 */
public record EvalSettings(String suite, String baseline, List<InputCase> cases, Tolerance tolerance,
                           MeasurementMethod measurement, PhaseLimits limits) {

    public static final EvalSettings DEFAULT = new EvalSettings("standard", BaselineChoice.AUTO,
            List.of(InputCase.values()), Tolerance.DEFAULT, MeasurementMethod.DEFAULT, PhaseLimits.DEFAULT);

    public EvalSettings {
        cases = List.copyOf(cases);
        if (cases.isEmpty()) {
            throw new IllegalArgumentException("cases: list at least one input case");
        }
    }

    public EvalSettings withSuite(String name) {
        return new EvalSettings(name, baseline, cases, tolerance, measurement, limits);
    }

    public EvalSettings withBaseline(String name) {
        return new EvalSettings(suite, name, cases, tolerance, measurement, limits);
    }

    public static EvalSettings load(Path file) {
        Yaml yaml = ConfigFiles.read(file, Yaml.class);
        try {
            return yaml.toSettings();
        } catch (IllegalArgumentException e) {
            throw KevoException.input(file + ": " + e.getMessage());
        }
    }

    /**
     * The file's shape, config/eval.yaml's keys; absent keys take the defaults. Campaign folders store their
     * settings in this shape too, so a folder written before a key existed still reads (with that key's default).
     */
    public record Yaml(String suite, String baseline, List<String> cases, ToleranceYaml tolerance,
                       MeasurementYaml measurement, LimitsYaml limits) {

        public static Yaml of(EvalSettings s) {
            Tolerance t = s.tolerance();
            MeasurementMethod m = s.measurement();
            PhaseLimits l = s.limits();
            return new Yaml(s.suite(), s.baseline(), s.cases().stream().map(InputCase::id).toList(),
                    new ToleranceYaml(t.relativeL2(), t.absolute(), t.relative()),
                    new MeasurementYaml(m.settleMillis(), m.warmupMillis(), m.minRepetitions(), m.maxRepetitions(),
                            m.targetCi(), m.ciFloorMicros(), m.maxSecondsPerShape(), m.flushL2(), m.inputSets()),
                    new LimitsYaml(l.startupSeconds(), l.compileSeconds(), l.checkSeconds(), l.timingSeconds(),
                            l.workerMemoryGb(), l.launchFloorSeconds(), l.launchFactor()));
        }

        public EvalSettings toSettings() {
            return new EvalSettings(Objects.requireNonNullElse(suite, DEFAULT.suite()),
                    Objects.requireNonNullElse(baseline, DEFAULT.baseline()),
                    cases == null ? DEFAULT.cases() : cases.stream().map(InputCase::byId).toList(),
                    tolerance == null ? DEFAULT.tolerance() : tolerance.toTolerance(),
                    measurement == null ? DEFAULT.measurement() : measurement.toMethod(),
                    limits == null ? DEFAULT.limits() : limits.toLimits());
        }
    }

    public record ToleranceYaml(@JsonProperty("relative_l2") Double relativeL2, Double absolute, Double relative) {
        Tolerance toTolerance() {
            Tolerance d = Tolerance.DEFAULT;
            return new Tolerance(Objects.requireNonNullElse(relativeL2, d.relativeL2()),
                    Objects.requireNonNullElse(absolute, d.absolute()), Objects.requireNonNullElse(relative, d.relative()));
        }
    }

    public record MeasurementYaml(@JsonProperty("settle_ms") Double settleMs, @JsonProperty("warmup_ms") Double warmupMs, Integer minRepetitions,
                           Integer maxRepetitions, Double targetCi, @JsonProperty("ci_floor_us") Double ciFloorUs,
                           Double maxSecondsPerShape, Boolean flushL2,
                           Integer inputSets) {
        MeasurementMethod toMethod() {
            MeasurementMethod d = MeasurementMethod.DEFAULT;
            return new MeasurementMethod(Objects.requireNonNullElse(settleMs, d.settleMillis()),
                    Objects.requireNonNullElse(warmupMs, d.warmupMillis()),
                    Objects.requireNonNullElse(minRepetitions, d.minRepetitions()),
                    Objects.requireNonNullElse(maxRepetitions, d.maxRepetitions()),
                    Objects.requireNonNullElse(targetCi, d.targetCi()),
                    Objects.requireNonNullElse(ciFloorUs, d.ciFloorMicros()),
                    Objects.requireNonNullElse(maxSecondsPerShape, d.maxSecondsPerShape()),
                    Objects.requireNonNullElse(flushL2, d.flushL2()),
                    Objects.requireNonNullElse(inputSets, d.inputSets()));
        }
    }

    public record LimitsYaml(@JsonProperty("startup_s") Double startupS, @JsonProperty("compile_s") Double compileS,
                      @JsonProperty("check_s") Double checkS, @JsonProperty("timing_s") Double timingS,
                      @JsonProperty("worker_memory_gb") Double workerMemoryGb,
                      @JsonProperty("launch_floor_s") Double launchFloorS,
                      @JsonProperty("launch_factor") Double launchFactor) {
        PhaseLimits toLimits() {
            PhaseLimits d = PhaseLimits.DEFAULT;
            return new PhaseLimits(Objects.requireNonNullElse(startupS, d.startupSeconds()),
                    Objects.requireNonNullElse(compileS, d.compileSeconds()),
                    Objects.requireNonNullElse(checkS, d.checkSeconds()),
                    Objects.requireNonNullElse(timingS, d.timingSeconds()),
                    Objects.requireNonNullElse(workerMemoryGb, d.workerMemoryGb()),
                    Objects.requireNonNullElse(launchFloorS, d.launchFloorSeconds()),
                    Objects.requireNonNullElse(launchFactor, d.launchFactor()));
        }
    }
}
