package dev.kevo.agent.llm;

import dev.kevo.KevoException;
import dev.kevo.data.ModelSpec;
import dev.kevo.data.Provider;
import dev.kevo.data.Seconds;
import dev.langchain4j.exception.HttpException;
import dev.langchain4j.model.anthropic.AnthropicModelCatalog;
import dev.langchain4j.model.catalog.ModelDescription;
import dev.langchain4j.model.ollama.OllamaModel;
import dev.langchain4j.model.ollama.OllamaModels;
import dev.langchain4j.model.openai.OpenAiModelCatalog;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * Asks a model's server, before the campaign starts, for its model list: the cheapest request that proves the
 * address is right, the server up and the key accepted. Where the list is complete (OpenAI, Ollama) it also
 * checks the model is on it, so a typo is one line now rather than a failure per child.
 */
final class ServerProbe {
    /** Long enough for a server on the other side of the world, short enough not to stall a start. */
    static final Duration MAX_WAIT = Duration.ofSeconds(10);

    private ServerProbe() {
    }

    /**
     * @param where the model block's key in the config, e.g. {@code agents[1].model}
     * @throws KevoException input for a refused key or a model the server does not have, environment for a
     *     server that cannot be reached
     */
    static void check(ModelSpec spec, String key, String where) {
        Duration wait = Duration.ofMillis(Math.min(MAX_WAIT.toMillis(), Math.round(spec.timeoutSeconds() * 1000)));
        List<String> models;
        try {
            models = list(spec, key, wait);
        } catch (RuntimeException e) {
            throw explain(spec, where, wait, e);
        }
        String wanted = spec.model();
        switch (spec.kind()) {
            case OPENAI -> {
                if (!models.isEmpty() && !models.contains(wanted)) {
                    throw KevoException.input(where + ".model: " + spec.baseUrl() + " does not list a model '"
                            + wanted + "' (it lists " + models.size() + ", e.g. " + sample(models) + ")");
                }
            }
            case OLLAMA -> {
                if (models.stream().noneMatch(m -> tagged(m).equals(tagged(wanted)))) {
                    throw KevoException.input(where + ".model: the Ollama server at " + spec.baseUrl()
                            + " has no model '" + wanted + "' (it has " + (models.isEmpty() ? "none" : sample(models))
                            + "); run `ollama pull " + wanted + "` there");
                }
            }
            default -> {
                // Anthropic's list is paged and omits aliases; local OpenAI-style servers often take any name.
            }
        }
    }

    private static List<String> list(ModelSpec spec, String key, Duration wait) {
        return switch (spec.kind()) {
            case OPENAI, OPENAI_COMPATIBLE -> OpenAiModelCatalog.builder()
                    .httpClientBuilder(ChatModels.http(spec.baseUrl()))
                    .baseUrl(spec.baseUrl()).apiKey(key).connectTimeout(wait).readTimeout(wait).build()
                    .listModels().stream().map(ModelDescription::name).toList();
            case ANTHROPIC -> AnthropicModelCatalog.builder()
                    .httpClientBuilder(ChatModels.http(spec.baseUrl()))
                    .baseUrl(spec.baseUrl()).apiKey(key).timeout(wait).build()
                    .listModels().stream().map(ModelDescription::name).toList();
            case OLLAMA -> OllamaModels.builder()
                    .httpClientBuilder(ChatModels.http(spec.baseUrl()))
                    .baseUrl(spec.baseUrl()).timeout(wait).maxRetries(0).build()
                    .availableModels().content().stream().map(OllamaModel::getName).toList();
        };
    }

    private static KevoException explain(ModelSpec spec, String where, Duration wait, RuntimeException e) {
        String url = spec.baseUrl();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof HttpException h) {
                int status = h.statusCode();
                if (status == 401 || status == 403) {
                    return KevoException.input(where + ".api_key_env: " + url + " refused the key in "
                            + (spec.apiKeyEnv() == null ? "(no key configured)" : spec.apiKeyEnv()) + " (HTTP "
                            + status + ")");
                }
                if (status == 404) {
                    return KevoException.environment(where + ".base_url: " + url + " answered 404 to the model "
                            + "list: is the address right" + (spec.kind() == Provider.OLLAMA ? " (Ollama's native API "
                            + "has no /v1)?" : " (OpenAI-style servers usually end in /v1)?"));
                }
                return KevoException.environment(where + ".base_url: " + url + " answered "
                        + RetryPolicy.describe(h));
            }
            if (t instanceof HttpTimeoutException) {
                return KevoException.environment(where + ".base_url: no answer from " + url + " within "
                        + Seconds.of(wait) + " s");
            }
            if (t instanceof ConnectException) {
                return KevoException.environment(where + ".base_url: cannot reach " + url + " (connection refused: "
                        + "is the server running?)");
            }
            if (t instanceof IOException io) {
                return KevoException.environment(where + ".base_url: cannot reach " + url + " ("
                        + RetryPolicy.oneLine(String.valueOf(io.getMessage()), 150) + ")");
            }
        }
        return KevoException.environment(where + ".base_url: the model list from " + url + " failed: "
                + RetryPolicy.describe(e));
    }

    private static String tagged(String model) {
        return model.contains(":") ? model : model + ":latest";
    }

    private static String sample(List<String> models) {
        return String.join(", ", models.subList(0, Math.min(8, models.size())))
                + (models.size() > 8 ? ", ..." : "");
    }
}
