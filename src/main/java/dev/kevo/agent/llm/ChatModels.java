package dev.kevo.agent.llm;

import dev.kevo.data.ModelSpec;
import dev.kevo.data.Provider;
import dev.langchain4j.http.client.HttpClientBuilder;
import dev.langchain4j.http.client.jdk.JdkHttpClientBuilder;
import dev.langchain4j.model.anthropic.AnthropicChatModel;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.ollama.OllamaChatModel;
import dev.langchain4j.model.openai.OpenAiChatModel;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Builds langchain4j's chat model for a {@link ModelSpec}. langchain4j's own retries are off (0): kevo retries
 * itself ({@link RetryPolicy}), so every attempt is counted and the backoff is the config's.
 */
final class ChatModels {
    private ChatModels() {
    }

    /** @param key the key read from the spec's variable; null when the provider takes none */
    static ChatModel build(ModelSpec spec, String key) {
        Duration timeout = Duration.ofMillis(Math.round(spec.timeoutSeconds() * 1000));
        return switch (spec.kind()) {
            case OPENAI, OPENAI_COMPATIBLE -> {
                OpenAiChatModel.OpenAiChatModelBuilder b = OpenAiChatModel.builder()
                        .httpClientBuilder(http(spec.baseUrl()))
                        .baseUrl(spec.baseUrl())
                        .apiKey(key)
                        .modelName(spec.model())
                        .temperature(spec.temperature())
                        .timeout(timeout)
                        .maxRetries(0);
                // OpenAI's newer models refuse max_tokens; local servers do not all know max_completion_tokens.
                yield (spec.kind() == Provider.OPENAI ? b.maxCompletionTokens(spec.maxOutputTokens())
                        : b.maxTokens(spec.maxOutputTokens())).build();
            }
            case ANTHROPIC -> AnthropicChatModel.builder()
                    .httpClientBuilder(http(spec.baseUrl()))
                    .baseUrl(spec.baseUrl())
                    .apiKey(key)
                    .modelName(spec.model())
                    .temperature(spec.temperature())
                    .maxTokens(spec.maxOutputTokens())
                    .timeout(timeout)
                    .maxRetries(0)
                    .build();
            case OLLAMA -> OllamaChatModel.builder()
                    .httpClientBuilder(http(spec.baseUrl()))
                    .baseUrl(spec.baseUrl())
                    .modelName(spec.model())
                    .temperature(spec.temperature())
                    .numPredict(spec.maxOutputTokens())
                    .timeout(timeout)
                    .maxRetries(0)
                    .build();
        };
    }

    /**
     * The JDK's HttpClient. Over plain http it speaks HTTP/1.1 from the start: its default HTTP/2 upgrade
     * request (h2c) is something several local model servers answer badly or not at all.
     */
    static HttpClientBuilder http(String baseUrl) {
        HttpClient.Builder jdk = HttpClient.newBuilder();
        if (baseUrl.startsWith("http://")) {
            jdk.version(HttpClient.Version.HTTP_1_1);
        }
        return new JdkHttpClientBuilder().httpClientBuilder(jdk);
    }
}
