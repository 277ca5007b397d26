package dev.kevo.data;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The model APIs kevo speaks, each through langchain4j's client for it. */
public enum Provider {
    OPENAI("openai", "https://api.openai.com/v1", true, "gpt-4.1", "OPENAI_API_KEY"),
    /** vLLM, llama.cpp's server, LM Studio, Ollama's /v1: OpenAI's protocol at a base URL the config names. */
    OPENAI_COMPATIBLE("openai-compatible", null, false, "Qwen/Qwen2.5-Coder-32B-Instruct", "VLLM_API_KEY"),
    ANTHROPIC("anthropic", "https://api.anthropic.com/v1/", true, "claude-sonnet-4-5", "ANTHROPIC_API_KEY"),
    OLLAMA("ollama", "http://localhost:11434", false, "qwen2.5-coder:32b", null);

    private final String id;
    private final String defaultBaseUrl;
    private final boolean needsKey;
    private final String exampleModel;
    private final String exampleKeyEnv;

    Provider(String id, String defaultBaseUrl, boolean needsKey, String exampleModel, String exampleKeyEnv) {
        this.id = id;
        this.defaultBaseUrl = defaultBaseUrl;
        this.needsKey = needsKey;
        this.exampleModel = exampleModel;
        this.exampleKeyEnv = exampleKeyEnv;
    }

    public String id() {
        return id;
    }

    public Optional<String> defaultBaseUrl() {
        return Optional.ofNullable(defaultBaseUrl);
    }

    /** Whether the config must name a key variable (a local OpenAI-compatible server may take none). */
    public boolean needsKey() {
        return needsKey;
    }

    String exampleModel() {
        return exampleModel;
    }

    String exampleKeyEnv() {
        return exampleKeyEnv;
    }

    public static Optional<Provider> byId(String id) {
        return Arrays.stream(values()).filter(p -> p.id.equals(id)).findFirst();
    }

    static String ids() {
        return Arrays.stream(values()).map(Provider::id).collect(Collectors.joining(", "));
    }
}
