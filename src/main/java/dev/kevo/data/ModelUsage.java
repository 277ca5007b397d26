package dev.kevo.data;

/**
 * What one model answer cost, kept in the mutant's record so that lineage, progress and the cost stop
 * condition can add it up.
 *
 * @param model the config's agent name and the provider's model, e.g. {@code local-qwen (qwen3-coder)}
 * @param latencyMs wall time from the first request to the usable answer, retries included
 * @param attempts requests sent (1 when the first one was answered)
 * @param cost in the config's currency, from its per-million-token prices; 0 when no prices are set
 */
public record ModelUsage(String model, double latencyMs, int attempts, long inputTokens, long outputTokens,
                         double cost) {
}
