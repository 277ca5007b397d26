package dev.kevo.agent.llm;

import static dev.kevo.agent.llm.ModelServer.Reply;
import static dev.kevo.agent.llm.ModelServer.recorded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kevo.KevoException;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.Proposal;
import dev.kevo.data.ModelUsage;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Anthropic's messages protocol and Ollama's native chat protocol through langchain4j's clients for them, and the
 * checkReady of every provider: a missing key, an unreachable server, a refused key, a model the server lacks.
 */
class ProvidersTest {
    final ModelServer server = new ModelServer();
    final List<Duration> pauses = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void close() {
        server.close();
    }

    LlmAgent anthropic(Map<String, String> env) {
        return Fixtures.agent(Fixtures.spec("anthropic", server.url("/v1/"), "ANTHROPIC_TEST_KEY",
                b -> b.model = "claude-sonnet-4-5"), env, pauses);
    }

    LlmAgent ollama(String model) {
        return Fixtures.agent(Fixtures.spec("ollama", server.url(""), null, b -> {
            b.model = model;
            b.priceInput = 0.0;
            b.priceOutput = 0.0;
        }), Map.of(), pauses);
    }

    @Test
    void anthropicAnswersAreParsedAndCounted() {
        server.enqueue("/v1/messages", Reply.ok(recorded("anthropic-full-file.json")));
        Proposal p = anthropic(Map.of("ANTHROPIC_TEST_KEY", "sk-ant-test")).propose(Fixtures.request());
        assertEquals(recorded("fast.cu"), p.source());
        ModelUsage usage = p.call().orElseThrow().usage();
        assertEquals("gpt (claude-sonnet-4-5)", usage.model());
        assertEquals(3388, usage.inputTokens());
        assertEquals(1502, usage.outputTokens());
        assertEquals((3388 * 2.0 + 1502 * 8.0) / 1e6, usage.cost(), 1e-12);

        ModelServer.Request sent = server.requests("/v1/messages").getFirst();
        assertEquals("sk-ant-test", sent.headers().get("x-api-key"));
        JsonNode body = sent.json();
        assertEquals(8192, body.get("max_tokens").asInt());
        assertTrue(sent.prompt().contains("The kernel file contract"), "the system prompt is sent as system");
        assertTrue(sent.prompt().contains("### Parent `seed-online`"), sent.prompt());
    }

    @Test
    void anthropicMaxTokensAndOverloadAreHandled() {
        server.enqueue("/v1/messages", Reply.status(529, recorded("anthropic-529.json")),
                Reply.ok(recorded("anthropic-truncated.json")));
        AgentException e = assertThrows(AgentException.class,
                () -> anthropic(Map.of("ANTHROPIC_TEST_KEY", "k")).propose(Fixtures.request()));
        assertTrue(e.getMessage().startsWith("answer cut short"), e.getMessage());
        assertEquals(2, e.call().orElseThrow().usage().attempts(), "the 529 (overloaded) was retried");
    }

    @Test
    void ollamaAnswersAreParsedAndCountedFromEvalCounts() {
        server.enqueue("/api/chat", Reply.ok(recorded("ollama-full-file.json")),
                Reply.ok(recorded("ollama-truncated.json")));
        LlmAgent agent = ollama("qwen2.5-coder:32b");
        Proposal p = agent.propose(Fixtures.request());
        assertEquals(recorded("fast.cu"), p.source());
        ModelUsage usage = p.call().orElseThrow().usage();
        assertEquals(2890, usage.inputTokens());
        assertEquals(1204, usage.outputTokens());
        assertEquals(0.0, usage.cost(), "a local model costs nothing at the configured prices");
        JsonNode body = server.requests("/api/chat").getFirst().json();
        assertEquals("qwen2.5-coder:32b", body.get("model").asText());
        assertEquals(8192, body.at("/options/num_predict").asInt());
        assertTrue(!body.path("stream").asBoolean(true), "one answer, not a stream");

        AgentException cut = assertThrows(AgentException.class, () -> agent.propose(Fixtures.request()));
        assertTrue(cut.getMessage().startsWith("answer cut short"), cut.getMessage());
    }

    @Test
    void checkReadyPassesWhenTheServerListsTheModel() {
        server.fallback("/v1/models", r -> Reply.ok(recorded("openai-models.json")));
        server.fallback("/api/tags", r -> Reply.ok(recorded("ollama-tags.json")));
        Fixtures.agent(Fixtures.spec("openai", server.url("/v1"), "K", b -> { }), Map.of("K", "sk-1"), pauses)
                .checkReady();
        assertEquals("Bearer sk-1", server.requests("/v1/models").getFirst().headers().get("authorization"));
        ollama("qwen2.5-coder:32b").checkReady();
        server.fallback("/v1/models", r -> Reply.ok(recorded("anthropic-models.json")));
        anthropic(Map.of("ANTHROPIC_TEST_KEY", "sk-ant")).checkReady();
        assertEquals("sk-ant", server.requests("/v1/models").getLast().headers().get("x-api-key"));
        Fixtures.agent(Fixtures.spec("openai-compatible", server.url("/v1"), null, b -> b.model = "any"), Map.of(),
                pauses).checkReady();
        assertTrue(server.requests("/v1/models").getLast().headers().get("authorization") == null,
                "no key configured, none sent");
    }

    @Test
    void checkReadyNamesTheMissingKeyVariable() {
        KevoException e = assertThrows(KevoException.class, () -> anthropic(Map.of()).checkReady());
        assertEquals(KevoException.Kind.INPUT, e.kind());
        assertEquals("agents[1].model.api_key_env: environment variable ANTHROPIC_TEST_KEY is not set (it must hold "
                + "the anthropic key for agent 'gpt')", e.getMessage());
        assertTrue(server.requests("/v1/models").isEmpty(), "nothing sent without a key");
        AgentException later = assertThrows(AgentException.class, () -> anthropic(Map.of()).propose(Fixtures.request()));
        assertTrue(later.getMessage().contains("ANTHROPIC_TEST_KEY is not set"));
    }

    @Test
    void checkReadyReportsAnUnreachableServer() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String url = "http://127.0.0.1:" + port + "/v1";
        KevoException e = assertThrows(KevoException.class, () -> Fixtures.agent(Fixtures.spec("openai-compatible",
                url, null, b -> { }), Map.of(), pauses).checkReady());
        assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
        assertEquals("agents[1].model.base_url: cannot reach " + url + " (connection refused: is the server running?)",
                e.getMessage());
    }

    @Test
    void aServerThatWentAwayMidCampaignIsRetriedThenAnAgentFailure() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        LlmAgent agent = Fixtures.agent(Fixtures.spec("ollama", "http://127.0.0.1:" + port, null, b -> { }),
                Map.of(), pauses);
        AgentException e = assertThrows(AgentException.class, () -> agent.propose(Fixtures.request()));
        assertEquals("3 attempts failed, the last: cannot connect (connection refused: is the server running?)",
                e.getMessage());
        assertEquals(3, e.call().orElseThrow().usage().attempts());
    }

    @Test
    void checkReadyReportsAStalledServerWithinItsShortWait() {
        server.fallback("/v1/models", r -> Reply.stall(5000, recorded("openai-models.json")));
        long start = System.nanoTime();
        KevoException e = assertThrows(KevoException.class, () -> Fixtures.agent(Fixtures.spec("openai-compatible",
                server.url("/v1"), null, b -> b.timeoutSeconds = 0.5), Map.of(), pauses).checkReady());
        assertTrue(e.getMessage().startsWith("agents[1].model.base_url: no answer from"), e.getMessage());
        assertTrue(e.getMessage().endsWith(" within 0.5 s"), e.getMessage());
        assertTrue((System.nanoTime() - start) / 1e9 < 3, "the model's timeout bounds the wait");
    }

    @Test
    void checkReadyReportsARefusedKeyAnUnknownModelAndAWrongAddress() {
        server.enqueue("/v1/models", Reply.status(401, recorded("openai-401.json")));
        KevoException refused = assertThrows(KevoException.class, () -> Fixtures.agent(Fixtures.spec("openai",
                server.url("/v1"), "K", b -> { }), Map.of("K", "sk-bad"), pauses).checkReady());
        assertEquals("agents[1].model.api_key_env: " + server.url("/v1") + " refused the key in K (HTTP 401)",
                refused.getMessage());

        server.fallback("/v1/models", r -> Reply.ok(recorded("openai-models.json")));
        KevoException unknown = assertThrows(KevoException.class, () -> Fixtures.agent(Fixtures.spec("openai",
                server.url("/v1"), "K", b -> b.model = "gpt-4.2"), Map.of("K", "sk"), pauses).checkReady());
        assertTrue(unknown.getMessage().startsWith("agents[1].model.model: " + server.url("/v1")
                + " does not list a model 'gpt-4.2' (it lists 3, e.g. gpt-4.1, "), unknown.getMessage());

        server.fallback("/api/tags", r -> Reply.ok(recorded("ollama-tags.json")));
        KevoException notPulled = assertThrows(KevoException.class, () -> ollama("llama3.3").checkReady());
        assertTrue(notPulled.getMessage().endsWith("has no model 'llama3.3' (it has qwen2.5-coder:32b); run `ollama "
                + "pull llama3.3` there"), notPulled.getMessage());

        KevoException wrongPath = assertThrows(KevoException.class, () -> Fixtures.agent(Fixtures.spec(
                "openai-compatible", server.url(""), null, b -> { }), Map.of(), pauses).checkReady());
        assertEquals(KevoException.Kind.ENVIRONMENT, wrongPath.kind());
        assertTrue(wrongPath.getMessage().contains("answered 404 to the model list"), wrongPath.getMessage());
    }
}
