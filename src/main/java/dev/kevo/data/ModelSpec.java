package dev.kevo.data;

import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One language model as a campaign config's agent entry describes it under {@code model:}. The key itself is
 * never in a file: {@code apiKeyEnv} names the environment variable that holds it.
 *
 * @param provider {@code openai}, {@code openai-compatible} (vLLM, llama.cpp, LM Studio, Ollama's /v1),
 *     {@code anthropic} or {@code ollama}
 * @param baseUrl where the provider's API lives; required for {@code openai-compatible}, the provider's own
 *     address otherwise
 * @param timeoutSeconds one request's limit; a request past it is retried like a 429 or a 5xx
 * @param retries requests sent again after a timeout, 429 or 5xx, with exponential backoff and jitter
 * @param priceInput price per million input tokens; with {@code priceOutput}, what the cost figures use
 * @param concurrency requests in flight at once
 * @param repairRounds times a failing candidate goes back to the model with its compiler log or mismatch
 * @param templates prompt template names (files {@code <prompts>/<name>.md}) and their weights
 * @param prompts folder of the prompt templates, relative to the kevo installation or checkout
 * @param profileShapes how many of a parent's shapes furthest from the memory floor its prompt shows Nsight Compute's
 *     profile of, where the GPU host has ncu (0: none); computed once per parent
 */
@JsonDeserialize(builder = ModelSpec.Builder.class)
public record ModelSpec(String provider, String model, String baseUrl, String apiKeyEnv, Double temperature,
                        Integer maxOutputTokens, Double timeoutSeconds, Integer retries, Integer concurrency,
                        Double priceInput, Double priceOutput, Integer repairRounds, Map<String, Double> templates,
                        String prompts, Integer profileShapes) {

    public ModelSpec {
        templates = templates == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(templates));
    }

    /** The defaults ({@link Defaults}), each key then set by name; YAML binds through it too. */
    public static Builder builder() {
        return new Builder();
    }

    /** The provider, once {@link #validated} has accepted its name. */
    public Provider kind() {
        return Provider.byId(provider).orElseThrow(() -> new IllegalStateException("unvalidated provider"));
    }

    /**
     * Checks every key.
     *
     * @param where the key of this block in the config, e.g. {@code agents[1].model}
     * @throws IllegalArgumentException one line naming the key
     */
    public ModelSpec validated(String where) {
        require(provider != null, where + ".provider: missing (one of " + Provider.ids() + ")");
        Provider p = Provider.byId(provider).orElseThrow(() -> new IllegalArgumentException(where
                + ".provider: unknown provider '" + provider + "' (one of " + Provider.ids() + ")"));
        require(model != null && !model.isBlank(), where + ".model: missing (the provider's model name, e.g. "
                + p.exampleModel() + ")");
        require(baseUrl != null, where + ".base_url: missing (the server's address, e.g. http://localhost:8000/v1)");
        require(isHttpUrl(baseUrl), where + ".base_url: '" + baseUrl + "' is not an http:// or https:// URL");
        if (p.needsKey()) {
            require(apiKeyEnv != null && !apiKeyEnv.isBlank(), where + ".api_key_env: missing (the name of the "
                    + "environment variable that holds the " + p.id() + " key, e.g. " + p.exampleKeyEnv() + ")");
        }
        if (apiKeyEnv != null) {
            require(p != Provider.OLLAMA, where + ".api_key_env: ollama's API takes no key (use provider "
                    + "openai-compatible for a server behind a key)");
            require(apiKeyEnv.matches("[A-Za-z_][A-Za-z0-9_]*") && apiKeyEnv.length() <= 64,
                    where + ".api_key_env: '" + redact(apiKeyEnv) + "' is not an environment variable name; "
                            + "name the variable that holds the key, never the key itself");
        }
        require(temperature == null || (temperature >= 0 && temperature <= 2),
                where + ".temperature: between 0 and 2");
        require(maxOutputTokens >= 1 && maxOutputTokens <= 1_000_000,
                where + ".max_output_tokens: between 1 and 1000000");
        require(timeoutSeconds > 0 && timeoutSeconds <= 3600, where + ".timeout_seconds: between 0 and 3600");
        require(retries >= 0 && retries <= 10, where + ".retries: between 0 and 10");
        require(concurrency >= 1 && concurrency <= 64, where + ".concurrency: between 1 and 64");
        require(priceInput >= 0, where + ".price_input: must not be negative");
        require(priceOutput >= 0, where + ".price_output: must not be negative");
        require(repairRounds >= 0 && repairRounds <= 10, where + ".repair_rounds: between 0 and 10");
        require(profileShapes >= 0 && profileShapes <= 16, where + ".profile_shapes: between 0 (none) and 16");
        require(!templates.isEmpty(), where + ".templates: list at least one template");
        for (Map.Entry<String, Double> t : templates.entrySet()) {
            require(t.getKey().matches("[a-z0-9_-]+"), where + ".templates." + t.getKey()
                    + ": template names are lower-case letters, digits, '_' and '-' (the file is <name>.md)");
            require(t.getValue() != null && t.getValue() >= 0, where + ".templates." + t.getKey()
                    + ": weight must not be negative");
        }
        require(templates.values().stream().mapToDouble(Double::doubleValue).sum() > 0,
                where + ".templates: at least one weight must be positive");
        return this;
    }

    /** What one answer costs at the configured prices. */
    public double cost(long inputTokens, long outputTokens) {
        return (inputTokens * priceInput + outputTokens * priceOutput) / 1e6;
    }

    private static boolean isHttpUrl(String url) {
        try {
            URI uri = new URI(url);
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    /** Whatever was written where a variable name belongs may be a key: never echo it whole. */
    private static String redact(String text) {
        return text.length() <= 8 ? text : text.substring(0, 4) + "...";
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
        private String provider;
        private String model;
        private String baseUrl;
        private String apiKeyEnv;
        private Double temperature;
        private Integer maxOutputTokens = Defaults.MAX_OUTPUT_TOKENS;
        private Double timeoutSeconds = Defaults.TIMEOUT_SECONDS;
        private Integer retries = Defaults.RETRIES;
        private Integer concurrency = Defaults.CONCURRENCY;
        private Double priceInput = Defaults.PRICE_INPUT;
        private Double priceOutput = Defaults.PRICE_OUTPUT;
        private Integer repairRounds = Defaults.REPAIR_ROUNDS;
        private Integer profileShapes = Defaults.PROFILE_SHAPES;
        private Map<String, Double> templates = Defaults.TEMPLATES;
        private String prompts = Defaults.PROMPTS;

        private Builder() {
        }

        public Builder provider(String value) {
            provider = value;
            return this;
        }

        public Builder model(String value) {
            model = value;
            return this;
        }

        /** Null: the provider's own address, where it has one. */
        public Builder baseUrl(String value) {
            baseUrl = value;
            return this;
        }

        public Builder apiKeyEnv(String value) {
            apiKeyEnv = value;
            return this;
        }

        /** Null: the provider's own default. */
        public Builder temperature(Double value) {
            temperature = value;
            return this;
        }

        public Builder maxOutputTokens(Integer value) {
            maxOutputTokens = value;
            return this;
        }

        public Builder timeoutSeconds(Double value) {
            timeoutSeconds = value;
            return this;
        }

        public Builder retries(Integer value) {
            retries = value;
            return this;
        }

        public Builder concurrency(Integer value) {
            concurrency = value;
            return this;
        }

        public Builder priceInput(Double value) {
            priceInput = value;
            return this;
        }

        public Builder priceOutput(Double value) {
            priceOutput = value;
            return this;
        }

        public Builder repairRounds(Integer value) {
            repairRounds = value;
            return this;
        }

        public Builder templates(Map<String, Double> value) {
            templates = value;
            return this;
        }

        public Builder prompts(String value) {
            prompts = value;
            return this;
        }

        public Builder profileShapes(Integer value) {
            profileShapes = value;
            return this;
        }

        public ModelSpec build() {
            String url = baseUrl != null ? baseUrl
                    : Provider.byId(provider).flatMap(Provider::defaultBaseUrl).orElse(null);
            return new ModelSpec(provider, model, url, apiKeyEnv, temperature, maxOutputTokens, timeoutSeconds, retries,
                    concurrency, priceInput, priceOutput, repairRounds, templates, prompts, profileShapes);
        }
    }
}
