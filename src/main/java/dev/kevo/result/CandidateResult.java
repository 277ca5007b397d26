package dev.kevo.result;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the evaluator learned about one kernel file.
 *
 * @param verdict PASS only when every shape passed
 * @param detail for a rejection, the first failure in one line
 * @param score geometric mean over the suite of the per-shape speedup against the baseline; null unless passed
 * @param floorFraction geometric mean of the per-shape memory-floor fractions; null unless passed
 * @param inputSeed replays the exact inputs with {@code kevo eval --seed}
 * @param evaluationMs wall time the evaluator spent on this file, compile included
 * @param workerStartMs when a fresh worker had to be started for this file (the previous one was killed or
 *     crashed), how long that took: the cost of recovering from the file before
 * @param device the GPU that measured it ({@code ordinal name}), set by the supervisor that ran it
 * @param phaseMs where the evaluator's time went, by phase ({@code compile}, {@code check}, {@code timing}:
 *     settle included), in milliseconds
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CandidateResult(String name, String path, String description, Verdict verdict, String detail,
                              Double score, Double floorFraction, Double compileMs, String compileLog,
                              List<KernelResources> kernels, List<ShapeResult> shapes, long inputSeed,
                              Double evaluationMs, Double workerStartMs, String device,
                              Map<String, Double> phaseMs) {

    public CandidateResult {
        kernels = kernels == null ? List.of() : List.copyOf(kernels);
        shapes = shapes == null ? List.of() : List.copyOf(shapes);
        phaseMs = phaseMs == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(phaseMs));
    }

    public static CandidateResult rejected(String name, String path, String description, Verdict verdict,
                                           String detail, long inputSeed) {
        return new CandidateResult(name, path, description, verdict, detail, null, null, null, null, null, null,
                inputSeed, null, null, null, null);
    }

    public CandidateResult withEvaluationMs(double ms) {
        return new CandidateResult(name, path, description, verdict, detail, score, floorFraction, compileMs,
                compileLog, kernels, shapes, inputSeed, ms, workerStartMs, device, phaseMs);
    }

    public CandidateResult withWorkerStartMs(double ms) {
        return new CandidateResult(name, path, description, verdict, detail, score, floorFraction, compileMs,
                compileLog, kernels, shapes, inputSeed, evaluationMs, ms, device, phaseMs);
    }

    public CandidateResult withDevice(String measuredOn) {
        return new CandidateResult(name, path, description, verdict, detail, score, floorFraction, compileMs,
                compileLog, kernels, shapes, inputSeed, evaluationMs, workerStartMs, measuredOn, phaseMs);
    }

    public CandidateResult withPhaseMs(Map<String, Double> spent) {
        return new CandidateResult(name, path, description, verdict, detail, score, floorFraction, compileMs,
                compileLog, kernels, shapes, inputSeed, evaluationMs, workerStartMs, device, spent);
    }

    public boolean passed() {
        return verdict.passed();
    }
}
