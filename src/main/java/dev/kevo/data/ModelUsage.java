package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * What one model answer cost, kept in the mutant's record so that lineage, progress and the cost stop
 * condition can add it up, and how the request was made.
 *
 * @param model the config's agent name and the provider's model, e.g. {@code local-qwen (qwen3-coder)}
 * @param latencyMs wall time from the first request to the usable answer, retries included
 * @param attempts requests sent (1 when the first one was answered)
 * @param cost in the config's currency, from its per-million-token prices; 0 when no prices are set
 * @param patch for an answer of SEARCH/REPLACE blocks, how they went: {@code applied},
 *     {@code applied-ignoring-whitespace}, {@code unmatched-asked-for-whole-file} (a block matched nowhere and the
 *     model's whole file, asked for once more, was used), {@code unmatched-whole-file-unusable}, {@code unmatched},
 *     {@code ambiguous} or {@code malformed}; null for a whole-file answer
 * @param request how the prompt was put together; null for requests that are not proposals (repairs)
 */
public record ModelUsage(String model, double latencyMs, int attempts, long inputTokens, long outputTokens,
                         double cost, @JsonInclude(JsonInclude.Include.NON_NULL) String patch,
                         @JsonInclude(JsonInclude.Include.NON_NULL) PromptChoice request) {

    /** What one exchange cost, before how its patch went or how its prompt was made is known. */
    public static ModelUsage of(String model, double latencyMs, int attempts, long inputTokens, long outputTokens,
                                double cost) {
        return new ModelUsage(model, latencyMs, attempts, inputTokens, outputTokens, cost, null, null);
    }

    public ModelUsage withPatch(String value) {
        return new ModelUsage(model, latencyMs, attempts, inputTokens, outputTokens, cost, value, request);
    }

    public ModelUsage withRequest(PromptChoice value) {
        return new ModelUsage(model, latencyMs, attempts, inputTokens, outputTokens, cost, patch, value);
    }

    /** Two exchanges for one answer (a follow-up request) as one: their time, attempts, tokens and cost added. */
    public ModelUsage plus(ModelUsage later) {
        return new ModelUsage(model, latencyMs + later.latencyMs, attempts + later.attempts,
                inputTokens + later.inputTokens, outputTokens + later.outputTokens, cost + later.cost, patch, request);
    }
}
