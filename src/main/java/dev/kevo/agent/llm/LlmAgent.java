package dev.kevo.agent.llm;

import dev.kevo.KevoException;
import dev.kevo.agent.Agent;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.ModelCall;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RepairRequest;
import dev.kevo.data.ModelSpec;
import dev.kevo.data.ModelUsage;
import dev.kevo.data.Verdict;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * A language model as a campaign agent: each request becomes a prompt from an editable template filled with
 * measured evidence, the answer (a whole file or SEARCH/REPLACE blocks) becomes the child, and a child that
 * failed to compile or was wrong goes back to the same model with the compiler log or the mismatch, for a
 * bounded number of rounds. Thread-safe; at most {@code concurrency} requests are in flight, however many
 * campaign threads ask. Whatever the model answers, only {@link AgentException} leaves propose and repair, with
 * the exchange attached so that the prompt and raw answer are recorded.
 */
public final class LlmAgent implements Agent {
    /** The patch outcomes only the agent knows: after a block matched nowhere, the whole file was asked for. */
    static final String UNMATCHED_THEN_FILE = "unmatched-asked-for-whole-file";
    static final String UNMATCHED_THEN_UNUSABLE = "unmatched-whole-file-unusable";

    private final String name;
    private final String where;
    private final ModelSpec spec;
    private final String key;
    private final ChatModel model;
    private final PromptBuilder prompts;
    private final RetryPolicy retry;
    private final Semaphore slots;
    /** Prompts already sent, by digest, with their generation: the same question is not paid for twice. */
    private final Map<String, Integer> asked = new ConcurrentHashMap<>();

    LlmAgent(String name, String where, ModelSpec spec, PromptTemplates templates, Function<String, String> env,
             RetryPolicy retry) {
        this.name = name;
        this.where = where;
        this.spec = spec;
        this.key = spec.apiKeyEnv() == null ? null : blankToNull(env.apply(spec.apiKeyEnv()));
        // Without its key a model cannot be built; checkReady says so before anything runs.
        this.model = key == null && spec.apiKeyEnv() != null ? null : ChatModels.build(spec, key);
        this.prompts = new PromptBuilder(templates, spec.templates(), spec.repairRounds(), spec.temperature());
        this.retry = retry;
        this.slots = new Semaphore(spec.concurrency(), true);
    }

    /**
     * @param name the config entry's name, recorded with every mutant
     * @param where the entry's key in the config, e.g. {@code agents[1]}, for error messages
     * @param spec the entry's model block, defaults applied and validated
     * @param root the kevo checkout or installation the template folder is relative to
     * @param env where key variables are read (the process environment)
     * @throws KevoException a template file missing or with an unknown placeholder
     */
    public static LlmAgent create(String name, String where, ModelSpec spec, Path root, Function<String, String> env) {
        PromptTemplates templates = PromptTemplates.load(root.resolve(spec.prompts()), spec, where + ".model");
        return new LlmAgent(name, where, spec, templates, env, RetryPolicy.standard(spec.retries()));
    }

    @Override
    public String name() {
        return name;
    }

    /** The key is set and the server answers its model list with it. */
    @Override
    public void checkReady() {
        if (spec.apiKeyEnv() != null && key == null) {
            throw KevoException.input(where + ".model.api_key_env: environment variable " + spec.apiKeyEnv()
                    + " is not set (it must hold the " + spec.kind().id() + " key for agent '" + name + "')");
        }
        ServerProbe.check(spec, key, where + ".model");
    }

    /** How many times one question is asked in a generation, each time asking for another change. */
    private static final int MAX_REPEATS = 8;

    @Override
    public boolean wantsDistinctRequests() {
        return true;
    }

    /**
     * @throws AgentException also when the same question was already asked {@link #MAX_REPEATS} more times in the
     *     request's generation: it is not sent again (the record keeps the prompt, at no cost)
     */
    @Override
    public Proposal propose(ProposalRequest request) {
        PromptBuilder.Prompt prompt;
        try {
            prompt = prompts.forProposal(request);
        } catch (RuntimeException e) {
            throw new AgentException("could not build the prompt: " + RetryPolicy.describe(e), e);
        }
        int generation = request.slot().generation();
        Integer before = request.slot().inGeneration() ? asked.putIfAbsent(digest(prompt.transcript()), generation)
                : null;
        // A question already asked this generation (islands that still hold the same seeds give the same parents and
        // inspirations) is asked again with a line that says so and asks for another change: a reason for the model
        // to answer differently, and a prompt of its own.
        PromptBuilder.Prompt first = prompt;
        for (int repeat = 1; repeat <= MAX_REPEATS && before != null && before == generation; repeat++) {
            prompt = PromptBuilder.repeated(first, repeat);
            before = asked.putIfAbsent(digest(prompt.transcript()), generation);
        }
        if (before != null && before == generation) {
            throw new AgentException("not sent: the same prompt was already sent in generation " + generation,
                    new ModelCall(prompt.transcript(), "", ModelUsage.of(label(), 0, 0, 0, 0, 0)
                            .withRequest(prompt.choice())));
        }
        if (before != null) {
            asked.put(digest(prompt.transcript()), generation);  // a later generation may ask again
        }
        return ask(prompt, prompt.template());
    }

    private static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    @Override
    public int profileShapes() {
        return spec.profileShapes();
    }

    @Override
    public Optional<Proposal> repair(RepairRequest request) {
        Verdict verdict = request.failed().result() == null ? null : request.failed().result().verdict();
        if (request.round() > spec.repairRounds() || verdict == null || !verdict.rejected()
                || verdict == Verdict.AGENT_FAILURE || request.failed().source() == null
                || request.failed().source().isBlank()) {
            return Optional.empty();
        }
        PromptBuilder.Prompt prompt;
        try {
            prompt = prompts.forRepair(request);
        } catch (RuntimeException e) {
            throw new AgentException("could not build the repair prompt: " + RetryPolicy.describe(e), e);
        }
        return Optional.of(ask(prompt, "repair"));
    }

    /** One answer and the exchange that produced it, usage added up over every request made for it. */
    private record Exchange(String text, FinishReason finish, ModelCall call) {
    }

    /**
     * Sends the prompt and reads the answer. SEARCH/REPLACE blocks that match nowhere, even with whitespace ignored,
     * get one follow-up in the same conversation asking for the whole file: the model's idea is often sound where
     * its quoting is not, and one more answer costs less than a lost call. Never more than one, so a model that
     * cannot quote cannot loop.
     */
    private Proposal ask(PromptBuilder.Prompt prompt, String operator) {
        List<ChatMessage> messages = List.of(SystemMessage.from(prompt.system()), UserMessage.from(prompt.user()));
        Exchange first = send(messages, prompt.transcript(), prompt, null);
        try {
            return proposal(prompt, operator, first, AnswerParser.parse(usable(first), prompt.base()), null);
        } catch (AnswerParser.Unusable e) {
            if (!AnswerParser.UNMATCHED.equals(e.patch())) {
                throw new AgentException(e.getMessage(), withPatch(first.call(), e.patch()));
            }
            String followUp = PromptBuilder.wholeFileFollowUp(e.getMessage());
            List<ChatMessage> more = new ArrayList<>(messages);
            more.add(AiMessage.from(first.text()));
            more.add(UserMessage.from(followUp));
            String transcript = prompt.transcript() + "\n## assistant\n\n" + first.text().strip() + "\n\n## user\n\n"
                    + followUp;
            Exchange second;
            try {
                second = send(more, transcript, prompt, first.call().usage());
            } catch (AgentException failed) {
                throw failed.call().map(c -> new AgentException(failed.getMessage(), withPatch(c,
                        UNMATCHED_THEN_UNUSABLE))).orElse(failed);
            }
            try {
                return proposal(prompt, operator, second, AnswerParser.parse(usable(second), prompt.base()),
                        UNMATCHED_THEN_FILE);
            } catch (AnswerParser.Unusable again) {
                throw new AgentException("SEARCH/REPLACE blocks matched nowhere (" + e.getMessage() + ") and the "
                        + "whole file asked for then was unusable: " + again.getMessage(),
                        withPatch(second.call(), UNMATCHED_THEN_UNUSABLE));
            } catch (AgentException again) {
                throw new AgentException(again.getMessage(), withPatch(second.call(), UNMATCHED_THEN_UNUSABLE));
            }
        } catch (AgentException e) {
            throw e;
        } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
            // A bug of kevo's on an odd answer, or an answer that exhausts its stack or heap, still must not stop the
            // campaign; the record keeps the answer.
            throw new AgentException("could not read the answer: " + RetryPolicy.describe(e), first.call());
        }
    }

    /** The answer's text, unless the provider says it is not a whole answer. */
    private String usable(Exchange exchange) {
        if (exchange.finish() == FinishReason.LENGTH) {
            throw new AgentException("answer cut short: the model stopped at max_output_tokens ("
                    + spec.maxOutputTokens() + ") before finishing", exchange.call());
        }
        if (exchange.finish() == FinishReason.CONTENT_FILTER) {
            throw new AgentException("the provider's content filter stopped the answer", exchange.call());
        }
        return exchange.text();
    }

    /** @param patch what to record instead of the parser's own word, or null to keep it */
    private Proposal proposal(PromptBuilder.Prompt prompt, String operator, Exchange exchange,
                              AnswerParser.Parsed parsed, String patch) {
        String summary = prompt.subject() + " by " + spec.model()
                + (parsed.summary().isEmpty() ? "" : ": " + parsed.summary());
        ModelCall call = withPatch(exchange.call(), patch != null ? patch : parsed.patch());
        return new Proposal(parsed.source(), Optional.empty(), operator, summary, Optional.of(call));
    }

    private static ModelCall withPatch(ModelCall call, String patch) {
        return new ModelCall(call.prompt(), call.answer(), call.usage().withPatch(patch));
    }

    /**
     * One request, retried by the policy.
     *
     * @param earlier the usage of requests already made for this answer, added to this one's; null for the first
     */
    private Exchange send(List<ChatMessage> messages, String transcript, PromptBuilder.Prompt prompt,
                          ModelUsage earlier) {
        if (model == null) {
            throw new AgentException("environment variable " + spec.apiKeyEnv() + " is not set",
                    new ModelCall(transcript, "", usage(0, 0, null, prompt, earlier)));
        }
        try {
            slots.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AgentException("interrupted while waiting for a free request slot");
        }
        long start = System.nanoTime();
        RetryPolicy.Attempted<ChatResponse> answered;
        try {
            ChatRequest.Builder request = ChatRequest.builder().messages(messages);
            if (prompt.choice() != null && prompt.choice().temperature() != null) {
                request.temperature(prompt.choice().temperature());
            }
            answered = retry.run(() -> model.chat(request.build()));
        } catch (RetryPolicy.Failed e) {
            ModelUsage failed = ModelUsage.of(label(), millisSince(start), e.attempts(), 0, 0, 0)
                    .withRequest(prompt.choice());
            throw new AgentException(e.getMessage(), new ModelCall(transcript, "",
                    earlier == null ? failed : earlier.plus(failed)));
        } finally {
            slots.release();
        }
        ChatResponse response = answered.value();
        String text = response.aiMessage() == null || response.aiMessage().text() == null ? ""
                : response.aiMessage().text();
        ModelUsage usage = usage(millisSince(start), answered.attempts(), response.tokenUsage(), prompt, earlier);
        return new Exchange(text, response.finishReason(), new ModelCall(transcript, recorded(text), usage));
    }

    private ModelUsage usage(double latencyMs, int attempts, TokenUsage tokens, PromptBuilder.Prompt prompt,
                             ModelUsage earlier) {
        long in = tokens == null || tokens.inputTokenCount() == null ? 0 : tokens.inputTokenCount();
        long out = tokens == null || tokens.outputTokenCount() == null ? 0 : tokens.outputTokenCount();
        ModelUsage now = ModelUsage.of(label(), latencyMs, attempts, in, out, spec.cost(in, out))
                .withRequest(prompt.choice());
        return earlier == null ? now : earlier.plus(now);
    }

    private String label() {
        return name + " (" + spec.model() + ")";
    }

    /** An answer is kept whole up to the parse limit; a runaway one is kept that far, with a note. */
    private static String recorded(String text) {
        if (text.length() <= AnswerParser.MAX_ANSWER_CHARS) {
            return text;
        }
        return text.substring(0, AnswerParser.MAX_ANSWER_CHARS) + "\n\n[kevo: the answer was " + text.length()
                + " characters; only the first " + AnswerParser.MAX_ANSWER_CHARS + " are kept]\n";
    }

    private static double millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e6;
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
