package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the evaluator learned about one kernel file.
 *
 * @param verdict PASS only when every shape passed
 * @param detail for a rejection, the first failure in one line
 * @param score the geometric means over the suite of the per-shape speedup against the baseline and of the
 *     memory-floor fraction, with their intervals ({@link Score}); null unless passed. Saved flat, under the names it
 *     always had ({@code score}, {@code scoreCiLow}, ...), so that results saved before it was one value still read
 * @param inputSeed replays the exact inputs with {@code kevo eval --input-seed}
 * @param timingSecret drew which timed launches were checked and where each timed input was salted: a fresh random
 *     value per evaluation, which nothing that shapes the inputs reveals; {@code kevo eval --timing-secret} replays
 *     it. Null in results recorded before it existed and in results that never reached timing
 * @param deterministic whether every shape's output was the same, bit for bit, when launched twice on one input;
 *     null where the checks did not get that far, and in results recorded before it was checked
 * @param evaluationMs wall time the evaluator spent on this file, compile included
 * @param workerStartMs when a fresh worker had to be started for this file (the previous one was killed or
 *     crashed), how long that took: the cost of recovering from the file before
 * @param device the GPU that measured it ({@code ordinal name}), set by the supervisor that ran it
 * @param phaseMs where the evaluator's time went, by phase ({@code compile}, {@code check}, {@code timing}:
 *     settle included), in milliseconds; then the check's parts, which its figure includes: {@code check.suite}
 *     (every suite shape on every case), {@code check.plain} (a shape a plan in plain buffers) and
 *     {@code check.beyond} (the shapes drawn beyond the suite, and with at-scale checks the rest of them)
 * @param freshShapes the shapes drawn beyond the suite for this evaluation (from its timing secret), each checked
 *     like a suite shape but untimed, in the order drawn; empty when none were drawn or the suite already failed
 * @param atScaleShapes with {@code kevo eval --at-scale} and in champion confirmation: the held-out shapes, then the
 *     at-scale one; null when not asked for
 * @param atScaleNote why the at-scale shape was not judged (the GPU lacked the memory), in one line; null otherwise
 * @param judgedElements the most elements of any shape the candidate passed on (suite, fresh and at-scale shapes);
 *     null unless it passed
 * @param plans what each plan the checks reached was judged on ({@link PlanJudgement}), in plan order: what an export
 *     runs each plan within; empty unless passed, and in results recorded before plans were counted
 * @param build the code judged: its compiler, options and cubin hash ({@link JudgedBuild}); null where nothing
 *     compiled, and in results recorded before builds were named
 * @param sourceHash kevo's identity of the source judged ({@code kevo eval} records it, so that an export can tell
 *     whether a record is of the file it exports)
 * @param sanitized what compute-sanitizer found, when the file was run under it (a finding is then also the
 *     verdict); null when it was not
 * @param screen the cascade's first step this evaluation was under (shapes timed first, and the bar), in a campaign;
 *     null when the candidate was timed on every shape with no bar
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CandidateResult(String name, String path, String description, Verdict verdict, String detail,
                              @JsonUnwrapped @JsonProperty(UNWRAPPED_SCORE) Score score,
                              Double compileMs, String compileLog,
                              List<KernelResources> kernels, List<ShapeResult> shapes, long inputSeed,
                              Long timingSecret, Boolean deterministic, Double evaluationMs, Double workerStartMs,
                              String device, Map<String, Double> phaseMs, List<ShapeResult> freshShapes,
                              List<ShapeResult> atScaleShapes, String atScaleNote, Long judgedElements,
                              List<PlanJudgement> plans, JudgedBuild build, String sourceHash, Sanitized sanitized, Screen screen) {

    /**
     * The score's name to Jackson only: its fields are written in place (flat), so it must not take the name of one
     * of them ({@code score}), which Jackson would then read as the whole value.
     */
    private static final String UNWRAPPED_SCORE = "$score";

    public CandidateResult {
        kernels = kernels == null ? List.of() : List.copyOf(kernels);
        shapes = shapes == null ? List.of() : List.copyOf(shapes);
        freshShapes = freshShapes == null ? List.of() : List.copyOf(freshShapes);
        atScaleShapes = atScaleShapes == null ? null : List.copyOf(atScaleShapes);
        plans = plans == null ? List.of() : List.copyOf(plans);
        phaseMs = phaseMs == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(phaseMs));
    }

    /** A result with every measured part absent: the builder for the evaluator and tests. */
    public static Builder builder(String name, Verdict verdict, long inputSeed) {
        return new Builder(name, verdict, inputSeed);
    }

    /** A kernel rejected before it produced any measurement: only its verdict and the first failure. */
    public static CandidateResult rejected(String name, String path, String description, Verdict verdict,
                                           String detail, long inputSeed) {
        return builder(name, verdict, inputSeed).path(path).description(description).detail(detail).build();
    }

    /** A copy to change: the supervisor adds where and how long, the evaluator adds what its phases took. */
    public Builder toBuilder() {
        Builder b = new Builder(name, verdict, inputSeed);
        b.path = path;
        b.description = description;
        b.detail = detail;
        b.score = score;
        b.compileMs = compileMs;
        b.compileLog = compileLog;
        b.kernels = kernels;
        b.shapes = shapes;
        b.timingSecret = timingSecret;
        b.deterministic = deterministic;
        b.evaluationMs = evaluationMs;
        b.workerStartMs = workerStartMs;
        b.device = device;
        b.phaseMs = phaseMs;
        b.freshShapes = freshShapes;
        b.atScaleShapes = atScaleShapes;
        b.atScaleNote = atScaleNote;
        b.judgedElements = judgedElements;
        b.plans = plans;
        b.build = build;
        b.sourceHash = sourceHash;
        b.sanitized = sanitized;
        b.screen = screen;
        return b;
    }

    /** Names every part, so that no caller passes a row of nulls. */
    public static final class Builder {
        private final String name;
        private Verdict verdict;
        private final long inputSeed;
        private String path;
        private String description;
        private String detail;
        private Score score;
        private Double compileMs;
        private String compileLog;
        private List<KernelResources> kernels;
        private List<ShapeResult> shapes;
        private Long timingSecret;
        private Boolean deterministic;
        private Double evaluationMs;
        private Double workerStartMs;
        private String device;
        private Map<String, Double> phaseMs;
        private List<ShapeResult> freshShapes;
        private List<ShapeResult> atScaleShapes;
        private String atScaleNote;
        private Long judgedElements;
        private List<PlanJudgement> plans;
        private JudgedBuild build;
        private String sourceHash;
        private Sanitized sanitized;
        private Screen screen;

        private Builder(String name, Verdict verdict, long inputSeed) {
            this.name = name;
            this.verdict = verdict;
            this.inputSeed = inputSeed;
        }

        public Builder path(String value) {
            path = value;
            return this;
        }

        public Builder description(String value) {
            description = value;
            return this;
        }

        public Builder detail(String value) {
            detail = value;
            return this;
        }

        /** The suite's geometric means with their intervals (null: none, the result did not pass). */
        public Builder score(Score value) {
            score = value;
            return this;
        }

        /** A score without intervals ({@link Score#withoutInterval}), as test doubles make one. */
        public Builder score(double speedup, double floorFraction) {
            return score(Score.withoutInterval(speedup, floorFraction));
        }

        public Builder compiled(Double ms, String log, List<KernelResources> resources) {
            compileMs = ms;
            compileLog = log;
            kernels = resources;
            return this;
        }

        public Builder shapes(List<ShapeResult> value) {
            shapes = value;
            return this;
        }

        public Builder timingSecret(Long value) {
            timingSecret = value;
            return this;
        }

        public Builder deterministic(Boolean value) {
            deterministic = value;
            return this;
        }

        public Builder evaluationMs(Double value) {
            evaluationMs = value;
            return this;
        }

        public Builder workerStartMs(Double value) {
            workerStartMs = value;
            return this;
        }

        public Builder device(String value) {
            device = value;
            return this;
        }

        public Builder phaseMs(Map<String, Double> value) {
            phaseMs = value;
            return this;
        }

        /** The shapes drawn beyond the suite for this evaluation. */
        public Builder freshShapes(List<ShapeResult> value) {
            freshShapes = value;
            return this;
        }

        /** The at-scale checks: the held-out shapes and the at-scale one, and why that one was not judged. */
        public Builder atScale(List<ShapeResult> value, String note) {
            atScaleShapes = value;
            atScaleNote = note;
            return this;
        }

        public Builder judgedElements(Long value) {
            judgedElements = value;
            return this;
        }

        public Builder plans(List<PlanJudgement> value) {
            plans = value;
            return this;
        }

        public Builder build(JudgedBuild value) {
            build = value;
            return this;
        }

        public Builder sourceHash(String value) {
            sourceHash = value;
            return this;
        }

        public Builder sanitized(Sanitized value) {
            sanitized = value;
            return this;
        }

        public Builder screen(Screen value) {
            screen = value;
            return this;
        }

        public CandidateResult build() {
            return new CandidateResult(name, path, description, verdict, detail, score, compileMs, compileLog,
                    kernels, shapes, inputSeed, timingSecret, deterministic, evaluationMs, workerStartMs, device,
                    phaseMs, freshShapes, atScaleShapes, atScaleNote, judgedElements, plans, build, sourceHash, sanitized,
                    screen);
        }
    }

    public boolean passed() {
        return verdict.passed();
    }

    /**
     * This result with what compute-sanitizer found. A finding is the verdict (it names the cause, where an output
     * check at most shows a symptom) and takes the score away; the verdict it replaces stays in the detail.
     */
    public CandidateResult withSanitized(Sanitized found) {
        Builder b = toBuilder().sanitized(found);
        if (found.passed()) {
            return b.build();
        }
        // Everything measured stays, as evidence; what only a pass has goes.
        b.verdict = found.verdict();
        b.detail = found.detail() + (passed() ? "" : "; the evaluation also found " + verdict.id()
                + (detail == null ? "" : ": " + detail));
        b.score = null;
        b.judgedElements = null;
        b.plans = null;
        return b.build();
    }

}
