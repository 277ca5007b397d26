package dev.kevo.agent.llm;

import static dev.kevo.agent.llm.ModelServer.Reply;
import static dev.kevo.agent.llm.ModelServer.recorded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.Candidate;
import dev.kevo.agent.ModelCall;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RepairRequest;
import dev.kevo.agent.RequestSlot;
import dev.kevo.data.ModelUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The agent against a loopback server speaking OpenAI's chat-completions protocol, langchain4j's OpenAI client
 * doing the talking: recorded answers of every kind, injected 429s, 500s and stalls.
 */
class OpenAiAgentTest {
    static final String PATH = "/v1/chat/completions";
    static final Map<String, String> ENV = Map.of("KEVO_TEST_KEY", "sk-test-123");

    final ModelServer server = new ModelServer();
    final List<Duration> pauses = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void close() {
        server.close();
    }

    LlmAgent agent(Consumer<Fixtures.ModelSpecBuilder> change) {
        return Fixtures.agent(Fixtures.spec("openai", server.url("/v1"), "KEVO_TEST_KEY", change), ENV, pauses);
    }

    LlmAgent agent() {
        return agent(b -> { });
    }

    AgentException failure(LlmAgent agent) {
        return assertThrows(AgentException.class, () -> agent.propose(Fixtures.request()));
    }

    @Test
    void aWholeFileAnswerBecomesTheChildWithItsPromptAnswerTokensAndCost() {
        server.enqueue(PATH, Reply.ok(recorded("openai-full-file.json")));
        Proposal p = agent().propose(Fixtures.request());
        assertEquals(recorded("fast.cu"), p.source());
        assertEquals("improve", p.operator());
        assertTrue(p.summary().startsWith("improve by gpt-4.1: use __expf in the write pass"), p.summary());
        ModelCall call = p.call().orElseThrow();
        ModelUsage usage = call.usage();
        assertEquals("gpt (gpt-4.1)", usage.model());
        assertEquals(1, usage.attempts());
        assertEquals(3121, usage.inputTokens());
        assertEquals(1460, usage.outputTokens());
        assertEquals((3121 * 2.0 + 1460 * 8.0) / 1e6, usage.cost(), 1e-12);
        assertTrue(usage.latencyMs() > 0);
        assertTrue(call.answer().contains("Change: use `__expf`"), "the raw answer is kept");
        assertTrue(call.prompt().startsWith("## system\n"), call.prompt());

        ModelServer.Request sent = server.requests(PATH).getFirst();
        assertEquals("Bearer sk-test-123", sent.headers().get("authorization"));
        JsonNode body = sent.json();
        assertEquals("gpt-4.1", body.get("model").asText());
        assertEquals(8192, body.get("max_completion_tokens").asInt());
        assertEquals(0.7, body.get("temperature").asDouble());
        assertEquals("system", body.at("/messages/0/role").asText());
        String prompt = sent.prompt();
        assertEquals(call.prompt().replace("## system\n\n", "").replace("\n## user\n\n", "\n").strip(),
                prompt.strip(), "what is recorded is what was sent");
    }

    @Test
    void thePromptCarriesTheEvidence() {
        server.enqueue(PATH, Reply.ok(recorded("openai-full-file.json")));
        agent().propose(Fixtures.request(Optional.empty(), List.of(Fixtures.compileFailure()), 1));
        String prompt = server.requests(PATH).getFirst().prompt();
        assertTrue(prompt.contains("NVIDIA H100 80GB HBM3 (sm_90), 132 SMs, L2 50 MB"), prompt);
        assertTrue(prompt.contains("measured copy bandwidth: 3.09 TB/s (a device-to-device copy of the 134.2 MB a "
                        + "softmax fp32 of 4096x4096 moves"),
                "the largest shape: 2 x 4 x 4096^2 bytes in 43.4 us: " + prompt);
        assertTrue(prompt.contains("/*@kevo"), "the contract");
        assertTrue(prompt.contains("kevo_warp_online"), "kevo.h");
        assertTrue(prompt.contains("| 4096x4096 | 1 | pass | 77.9 | 80.4 | 1.03x | 0.56 |"), prompt);
        assertTrue(prompt.contains("softmax_online 16 registers, no spills"), prompt);
        assertTrue(prompt.contains("Best of another island `g0004-i2-c1`: pass, score 2.390x"), prompt);
        assertTrue(prompt.contains("softmax_rows 40 registers, 24 B local memory (spills)"), prompt);
        assertTrue(prompt.contains(Fixtures.seed("register_rows.cu").lines().skip(20).findFirst().orElseThrow()),
                "the inspiration's source");
        assertTrue(prompt.contains("`g0003-i1-c2`: compile-error"), prompt);
        assertTrue(prompt.contains("identifier \"kevo_warp_onlin\" is undefined"), "the compiler's message");
    }

    @Test
    void aSearchReplaceAnswerEditsTheParent() {
        server.enqueue(PATH, Reply.ok(recorded("openai-search-replace.json")));
        Proposal p = agent().propose(Fixtures.request());
        assertEquals(Fixtures.recordedParent().replace("\"value\": 128", "\"value\": 256")
                .replace("yr[c] = expf(xr[c] - m) * inv", "yr[c] = __expf(xr[c] - m) * inv"), p.source());
    }

    @Test
    void unusableAnswersAreAgentFailuresWithTheRawAnswerAndTheirCost() {
        server.enqueue(PATH, Reply.ok(recorded("openai-garbage.json")), Reply.ok(recorded("openai-two-blocks.json")),
                Reply.ok(recorded("openai-truncated.json")));
        LlmAgent agent = agent();
        AgentException garbage = failure(agent);
        assertTrue(garbage.getMessage().startsWith("no code block"), garbage.getMessage());
        assertTrue(garbage.call().orElseThrow().answer().startsWith("I'd be happy to help"));
        assertEquals(96, garbage.call().orElseThrow().usage().outputTokens(), "a useless answer still cost tokens");
        assertTrue(failure(agent).getMessage().contains("code blocks hold different kernel files"));
        AgentException cut = failure(agent);
        assertEquals("answer cut short: the model stopped at max_output_tokens (8192) before finishing",
                cut.getMessage());
        assertEquals(8192, cut.call().orElseThrow().usage().outputTokens());
        assertEquals(3, server.requests(PATH).size(), "no retries for answers that arrived");
    }

    @Test
    void blocksThatMatchNowhereMakeOneFollowUpForTheWholeFile() {
        server.enqueue(PATH, Reply.ok(recorded("openai-search-miss.json")), Reply.ok(recorded("openai-full-file.json")));
        Proposal p = agent().propose(Fixtures.request());
        assertEquals(recorded("fast.cu"), p.source(), "the whole file of the follow-up is the child");
        ModelUsage usage = p.call().orElseThrow().usage();
        assertEquals(LlmAgent.UNMATCHED_THEN_FILE, usage.patch());
        assertEquals(2, usage.attempts(), "both requests are counted");
        assertEquals(3121 + recordedInputTokens("openai-search-miss.json"), usage.inputTokens(), "and both paid for");
        List<ModelServer.Request> sent = server.requests(PATH);
        assertEquals(2, sent.size());
        JsonNode followUp = sent.get(1).json().get("messages");
        assertEquals("assistant", followUp.get(2).get("role").asText(), "the follow-up continues the conversation");
        assertTrue(followUp.get(3).get("content").asText().contains("SEARCH block 1 (line 4) does not match the file"),
                followUp.toString());
        assertTrue(p.call().orElseThrow().prompt().contains("## assistant"), "the record shows the whole exchange");
    }

    @Test
    void aFollowUpThatIsUnusableTooIsOneFailureNotALoop() {
        server.enqueue(PATH, Reply.ok(recorded("openai-search-miss.json")), Reply.ok(recorded("openai-search-miss.json")),
                Reply.ok(recorded("openai-full-file.json")));
        AgentException e = failure(agent());
        assertTrue(e.getMessage().contains("matched nowhere") && e.getMessage().contains("then was unusable"),
                e.getMessage());
        assertEquals(LlmAgent.UNMATCHED_THEN_UNUSABLE, e.call().orElseThrow().usage().patch());
        assertEquals(2, server.requests(PATH).size(), "one follow-up, never more");
    }

    @Test
    void blocksThatMatchSeveralPlacesAreTheModelsErrorWithoutAFollowUp() {
        server.enqueue(PATH, Reply.ok(ModelServer.openAiWithContent("<<<<<<< SEARCH\n}\n=======\nx\n>>>>>>> REPLACE\n")));
        AgentException e = failure(agent());
        assertTrue(e.getMessage().contains("matches several places"), e.getMessage());
        assertEquals(AnswerParser.AMBIGUOUS, e.call().orElseThrow().usage().patch());
        assertEquals(1, server.requests(PATH).size());
    }

    @Test
    void aWholeFileAnswerRecordsNoPatchAndBlocksRecordHowTheyApplied() {
        server.enqueue(PATH, Reply.ok(recorded("openai-full-file.json")), Reply.ok(recorded("openai-search-replace.json")));
        LlmAgent agent = agent();
        assertEquals(null, agent.propose(Fixtures.request()).call().orElseThrow().usage().patch());
        assertEquals(AnswerParser.APPLIED, agent.propose(Fixtures.request()).call().orElseThrow().usage().patch());
    }

    /**
     * A question already asked in its generation is asked again with a line that says so and asks for another change:
     * its prompt is then one of its own, and it is sent (the scripted campaigns on the H100 lost two of six requests
     * to "not sent" where two islands held the same three seeds). A later generation asks the plain question again.
     */
    @Test
    void aQuestionAskedAgainInItsGenerationSaysSoAndIsSent() {
        server.fallback(PATH, r -> Reply.ok(recorded("openai-full-file.json")));
        LlmAgent agent = agent();
        for (int generation : new int[] {4, 4, 4, 5}) {
            agent.propose(Fixtures.request().withSlot(new RequestSlot(generation, 0)));
        }
        List<String> sent = server.requests(PATH).stream().map(ModelServer.Request::prompt).toList();
        assertEquals(4, sent.size());
        assertEquals(3, new java.util.HashSet<>(sent.subList(0, 3)).size(), "three prompts of their own");
        assertFalse(sent.get(0).contains("already asked"), sent.get(0));
        assertTrue(sent.get(1).contains("already asked once in this generation"), "the first repeat says so");
        assertTrue(sent.get(2).contains("already asked 2 times in this generation"), "the second too");
        assertFalse(sent.get(3).contains("already asked"), "a later generation asks the plain question");
    }

    static long recordedInputTokens(String name) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper().readTree(recorded(name))
                    .at("/usage/prompt_tokens").asLong();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aHugeAnswerIsAFailureAndIsRecordedOnlyUpToTheLimit() {
        String huge = "```cuda\n" + recorded("fast.cu") + "// " + "x".repeat(2 * 1024 * 1024) + "\n```\n";
        server.enqueue(PATH, Reply.ok(ModelServer.openAiWithContent(huge)));
        AgentException e = failure(agent());
        assertTrue(e.getMessage().startsWith("answer of " + huge.length() + " characters, over the"), e.getMessage());
        String kept = e.call().orElseThrow().answer();
        assertTrue(kept.length() < AnswerParser.MAX_ANSWER_CHARS + 200, "bounded: " + kept.length());
        assertTrue(kept.endsWith("only the first " + AnswerParser.MAX_ANSWER_CHARS + " are kept]\n"));
    }

    @Test
    void a429IsRetriedAfterABackoffAndTheAttemptIsCounted() {
        server.enqueue(PATH, Reply.status(429, recorded("openai-429.json")), Reply.ok(recorded("openai-full-file.json")));
        Proposal p = agent().propose(Fixtures.request());
        assertEquals(2, p.call().orElseThrow().usage().attempts());
        assertEquals(1, pauses.size());
        assertTrue(pauses.getFirst().toMillis() >= 5 && pauses.getFirst().toMillis() <= 10, "" + pauses);
        assertEquals(2, server.requests(PATH).size());
    }

    @Test
    void fiveHundredsUntilTheRetriesRunOutAreOneAgentFailure() {
        server.fallback(PATH, r -> Reply.status(500, recorded("openai-500.json")));
        AgentException e = failure(agent(b -> b.retries = 3));
        assertTrue(e.getMessage().startsWith("4 attempts failed, the last: HTTP 500: "), e.getMessage());
        assertTrue(e.getMessage().contains("The server had an error"), e.getMessage());
        ModelUsage usage = e.call().orElseThrow().usage();
        assertEquals(4, usage.attempts());
        assertEquals(0.0, usage.cost());
        assertEquals(4, server.requests(PATH).size());
        assertEquals(3, pauses.size());
        assertTrue(pauses.get(2).toMillis() >= 20 && pauses.get(2).toMillis() <= 40, "doubling: " + pauses);
    }

    @Test
    void aStallPastTheTimeoutIsRetriedThenAFailure() {
        server.fallback(PATH, r -> Reply.stall(3000, recorded("openai-full-file.json")));
        long start = System.nanoTime();
        AgentException e = failure(agent(b -> {
            b.timeoutSeconds = 0.3;
            b.retries = 1;
        }));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(e.getMessage().startsWith("2 attempts failed, the last: no answer in time"), e.getMessage());
        assertEquals(2, e.call().orElseThrow().usage().attempts());
        assertTrue(seconds < 2.5, "gave up at the timeout, not at the stall's end: " + seconds);
    }

    @Test
    void aStallThenAnAnswerSucceedsOnTheRetry() {
        server.enqueue(PATH, Reply.stall(2000, recorded("openai-full-file.json")),
                Reply.ok(recorded("openai-full-file.json")));
        Proposal p = agent(b -> b.timeoutSeconds = 0.3).propose(Fixtures.request());
        assertEquals(2, p.call().orElseThrow().usage().attempts());
    }

    @Test
    void aRefusedKeyIsNotRetried() {
        server.fallback(PATH, r -> Reply.status(401, recorded("openai-401.json")));
        AgentException e = failure(agent());
        assertTrue(e.getMessage().startsWith("HTTP 401: "), e.getMessage());
        assertEquals(1, server.requests(PATH).size());
    }

    @Test
    void concurrentRequestsAreBoundedByTheModelsConcurrency() throws Exception {
        server.fallback(PATH, r -> Reply.stall(150, recorded("openai-full-file.json")));
        LlmAgent agent = agent(b -> b.concurrency = 2);
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<Proposal>> results = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                results.add(pool.submit(() -> agent.propose(Fixtures.request())));
            }
            for (Future<Proposal> f : results) {
                assertEquals(recorded("fast.cu"), f.get().source());
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(2, server.maxInFlight(), "six callers, two requests at a time");
    }

    @Test
    void aFailedCandidateGoesBackWithItsCompilerLogForBoundedRounds() {
        server.fallback(PATH, r -> Reply.ok(recorded("openai-repaired.json")));
        LlmAgent agent = agent(b -> b.repairRounds = 2);
        Candidate failed = Fixtures.compileFailure();
        RepairRequest first = new RepairRequest(Fixtures.CONTEXT, Fixtures.parent(), failed, 1, new SplittableRandom(1));
        Proposal fix = agent.repair(first).orElseThrow();
        assertEquals("repair", fix.operator());
        assertTrue(fix.summary().startsWith("repair 1 of g0003-i1-c2 (compile-error) by gpt-4.1"), fix.summary());
        assertTrue(fix.source().contains("/* repaired */"));
        String prompt = server.requests(PATH).getFirst().prompt();
        assertTrue(prompt.contains("repair round 1 of 2"), prompt);
        assertTrue(prompt.contains("error: identifier \"kevo_warp_onlin\" is undefined"), prompt);
        assertTrue(prompt.contains("kevo_warp_onlin(m, s);"), "the failed source itself");

        assertTrue(agent.repair(new RepairRequest(Fixtures.CONTEXT, Fixtures.parent(), failed, 3,
                new SplittableRandom(1))).isEmpty(), "past repair_rounds");
        assertEquals(1, server.requests(PATH).size());
    }

    @Test
    void aWrongResultGoesBackWithTheMismatch() {
        server.fallback(PATH, r -> Reply.ok(recorded("openai-repaired.json")));
        agent().repair(new RepairRequest(Fixtures.CONTEXT, Fixtures.parent(), Fixtures.wrongResult(), 1,
                new SplittableRandom(1))).orElseThrow();
        String prompt = server.requests(PATH).getFirst().prompt();
        assertTrue(prompt.contains("Verdict wrong-result: 4096x4096: case normal-1 (seed 77)"), prompt);
        assertTrue(prompt.contains("first at row 0 col 0: got 0.7431 expected 2.118e-04"), prompt);
    }

    @Test
    void noRepairWhenTheConfigAsksForNone() {
        LlmAgent agent = agent(b -> b.repairRounds = 0);
        assertTrue(agent.repair(new RepairRequest(Fixtures.CONTEXT, Fixtures.parent(), Fixtures.compileFailure(), 1,
                new SplittableRandom(1))).isEmpty());
        assertTrue(server.requests(PATH).isEmpty());
    }
}
