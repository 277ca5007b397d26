package dev.kevo.agent.llm;

import java.util.Map;

/**
 * One language model as a campaign config's agent entry describes it under {@code model:}. The key itself is
 * never in a file: {@code apiKeyEnv} names the environment variable that holds it.
 *
 * @param provider {@code openai}, {@code openai-compatible} (vLLM, llama.cpp, LM Studio, Ollama's /v1),
 *     {@code anthropic} or {@code ollama}
 * @param priceInput price per million input tokens; with {@code priceOutput}, what the cost figures use
 * @param concurrency requests in flight at once
 * @param repairRounds times a failing candidate goes back to the model with its compiler log or mismatch
 * @param templates prompt template names and their weights
 */
public record ModelSpec(String provider, String model, String baseUrl, String apiKeyEnv, Double temperature,
                        Integer maxOutputTokens, Double timeoutSeconds, Integer retries, Integer concurrency,
                        Double priceInput, Double priceOutput, Integer repairRounds, Map<String, Double> templates) {
}
