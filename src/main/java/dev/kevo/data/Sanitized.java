package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What compute-sanitizer found when kevo ran a kernel file under it: part of the file's result, saved beside the
 * file as {@code NAME.sanitized.json} (a campaign's mutants too), and what {@code kevo export} asks for.
 *
 * @param verdict {@code pass}, {@code memory-error} or {@code data-race}; or why a tool's run gave no answer
 *     ({@code kernel-timeout}, {@code worker-crashed}), which is no pass either
 * @param detail the first finding in one line, naming the tool and the kernel; null for a pass
 * @param tools the tools that ran, in order (a pass ran all of them; a finding stops the rest)
 * @param shapes the shapes each tool ran the kernel on
 * @param plans the plans those shapes took (numbered from 1, as the header lists them), each on its smallest shape
 *     and one with odd columns: an export runs only plans a pass covered; empty in records written before plans were
 *     counted
 * @param build the code the tools ran ({@link JudgedBuild}): an export ships that cubin and no other
 * @param judgedPlans what each plan was judged on by the evaluation this pass followed (whose shapes it ran), as
 *     {@link CandidateResult#plans}: an export runs each plan only within it
 * @param seconds wall time of the whole pass, every worker start included
 * @param toolSeconds of that, each tool's run (its worker's start, the file's compile and launches, the worker's exit)
 * @param device the GPU it ran on
 * @param sanitizer compute-sanitizer's version, as it reports it
 * @param sourceHash the source hash of the exact bytes that ran: a record covers that source and no other
 * @param date when (UTC, ISO-8601)
 * @param kevoVersion the kevo that wrote the record
 * @param host the machine it was written on (its name, for people: the seal is what kevo checks)
 * @param seal an HMAC-SHA256 of every other field under a key kept in the writing host's kevo cache, as
 *     {@code hmac-sha256:HEX}: kevo counts a record only where its seal verifies ({@code store.RecordSeal}); null in
 *     records written before seals, and where the cache is off
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Sanitized(Verdict verdict, String detail, List<String> tools, List<String> shapes,
                        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Integer> plans, JudgedBuild build,
                        @JsonInclude(JsonInclude.Include.NON_EMPTY) List<PlanJudgement> judgedPlans, double seconds,
                        Map<String, Double> toolSeconds, String device, String sanitizer, String sourceHash,
                        String date, String kevoVersion, String host, String seal) {

    public Sanitized {
        tools = tools == null ? List.of() : List.copyOf(tools);
        shapes = shapes == null ? List.of() : List.copyOf(shapes);
        plans = plans == null ? List.of() : List.copyOf(plans);
        judgedPlans = judgedPlans == null ? List.of() : List.copyOf(judgedPlans);
        toolSeconds = toolSeconds == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(toolSeconds));
    }

    public static Builder builder(Verdict verdict) {
        return new Builder(verdict);
    }

    @JsonIgnore
    public boolean passed() {
        return verdict.passed();
    }

    /** This record, as the pass that followed an evaluation which judged the file's plans as {@code judged} says. */
    public Sanitized following(List<PlanJudgement> judged) {
        return new Sanitized(verdict, detail, tools, shapes, plans, build, judged, seconds, toolSeconds, device,
                sanitizer, sourceHash, date, kevoVersion, host, seal);
    }

    /** This record, covering the source whose hash is {@code hash}. */
    public Sanitized withSourceHash(String hash) {
        return new Sanitized(verdict, detail, tools, shapes, plans, build, judgedPlans, seconds, toolSeconds, device,
                sanitizer, hash, date, kevoVersion, host, seal);
    }

    /** This record as written by {@code version} on {@code machine}, with {@code mac} its seal (null: none yet). */
    public Sanitized writtenBy(String version, String machine, String mac) {
        return new Sanitized(verdict, detail, tools, shapes, plans, build, judgedPlans, seconds, toolSeconds, device,
                sanitizer, sourceHash, date, version, machine, mac);
    }

    /** What ran and how it ended, without the finding: "pass: memcheck, racecheck ... on 32x128, 8x128256 (21.4 s)". */
    public String summary() {
        return String.format(Locale.ROOT, "%s: %s%s (%.1f s)", verdict.id(), String.join(", ", tools),
                shapes.isEmpty() ? "" : " on " + String.join(", ", shapes), seconds);
    }

    /** {@link #summary()} and the finding, for where no verdict line shows it. */
    public String line() {
        return summary() + (detail == null ? "" : "; " + detail);
    }

    /** Whether a pass covered plan {@code plan} (numbered from 1). */
    public boolean covers(int plan) {
        return passed() && plans.contains(plan);
    }

    /** Names every part, so that no caller passes a row of values in order. */
    public static final class Builder {
        private final Verdict verdict;
        private String detail;
        private List<String> tools;
        private List<String> shapes;
        private List<Integer> plans;
        private JudgedBuild build;
        private double seconds;
        private Map<String, Double> toolSeconds;
        private String device;
        private String sanitizer;
        private String sourceHash;
        private String date;

        private Builder(Verdict verdict) {
            this.verdict = verdict;
        }

        public Builder detail(String value) {
            detail = value;
            return this;
        }

        public Builder tools(List<String> value) {
            tools = value;
            return this;
        }

        public Builder shapes(List<String> value) {
            shapes = value;
            return this;
        }

        public Builder plans(List<Integer> value) {
            plans = value;
            return this;
        }

        public Builder build(JudgedBuild value) {
            build = value;
            return this;
        }

        public Builder seconds(double value) {
            seconds = value;
            return this;
        }

        public Builder toolSeconds(Map<String, Double> value) {
            toolSeconds = value;
            return this;
        }

        public Builder device(String value) {
            device = value;
            return this;
        }

        public Builder sanitizer(String value) {
            sanitizer = value;
            return this;
        }

        public Builder sourceHash(String value) {
            sourceHash = value;
            return this;
        }

        public Builder date(String value) {
            date = value;
            return this;
        }

        public Sanitized build() {
            return new Sanitized(verdict, detail, tools, shapes, plans, build, null, seconds, toolSeconds, device,
                    sanitizer, sourceHash, date, null, null, null);
        }
    }
}
