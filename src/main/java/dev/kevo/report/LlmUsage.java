package dev.kevo.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What one LLM call cost for a mutant: model, tokens (prompt and completion together) and dollars.
 *
 * <p>Records gain these fields with the LLM agent, and their names were not settled when the report was
 * written, so this reads the record as a JSON tree and accepts the likely shapes rather than binding to a class:
 * an object (or a list of objects, one per call) in any field of the record, or the record itself, holding
 * {@code model}, token counts (a {@code tokens}/{@code totalTokens} field, else the sum of the fields whose name
 * contains "token") and a cost ({@code costUsd}, {@code cost} or {@code usd}, else a field whose name starts with
 * "cost"). A record without any, like every builtin-agent mutant, has no usage, and the report leaves its
 * tokens-and-cost section out.
 */
public record LlmUsage(String model, long tokens, double costUsd) {

    static final String UNKNOWN_MODEL = "unknown model";

    public static List<LlmUsage> from(JsonNode record) {
        List<LlmUsage> found = new ArrayList<>();
        if (record == null || !record.isObject()) {
            return found;
        }
        for (Map.Entry<String, JsonNode> field : record.properties()) {
            JsonNode value = field.getValue();
            if (value.isObject()) {
                usage(value).ifPresent(found::add);
            } else if (value.isArray()) {
                value.forEach(item -> usage(item).ifPresent(found::add));
            }
        }
        if (found.isEmpty()) {
            usage(record).ifPresent(found::add);
        }
        return found;
    }

    private static Optional<LlmUsage> usage(JsonNode node) {
        if (!node.isObject()) {
            return Optional.empty();
        }
        Long tokens = null;
        Double cost = null;
        long summed = 0;
        boolean anyTokenField = false;
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String name = field.getKey().toLowerCase(Locale.ROOT);
            JsonNode value = field.getValue();
            if (!value.isNumber()) {
                continue;
            }
            if (name.equals("tokens") || name.equals("totaltokens") || name.equals("total_tokens")) {
                tokens = value.asLong();
            } else if (name.contains("token")) {
                summed += value.asLong();
                anyTokenField = true;
            }
            if (name.equals("costusd") || name.equals("cost_usd") || name.equals("cost") || name.equals("usd")) {
                cost = value.asDouble();
            } else if (cost == null && name.startsWith("cost")) {
                cost = value.asDouble();
            }
        }
        if (tokens == null && anyTokenField) {
            tokens = summed;
        }
        if (tokens == null && cost == null) {
            return Optional.empty();
        }
        String model = node.path("model").isTextual() ? node.path("model").asText() : UNKNOWN_MODEL;
        return Optional.of(new LlmUsage(model, tokens == null ? 0 : tokens, cost == null ? 0 : cost));
    }
}
