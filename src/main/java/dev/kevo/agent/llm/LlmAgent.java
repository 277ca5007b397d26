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
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.model.output.TokenUsage;
import java.nio.file.Path;
import java.util.Optional;
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
    private final String name;
    private final String where;
    private final ModelSpec spec;
    private final String key;
    private final ChatModel model;
    private final PromptBuilder prompts;
    private final RetryPolicy retry;
    private final Semaphore slots;

    LlmAgent(String name, String where, ModelSpec spec, PromptTemplates templates, Function<String, String> env,
             RetryPolicy retry) {
        this.name = name;
        this.where = where;
        this.spec = spec;
        this.key = spec.apiKeyEnv() == null ? null : blankToNull(env.apply(spec.apiKeyEnv()));
        // Without its key a model cannot be built; checkReady says so before anything runs.
        this.model = key == null && spec.apiKeyEnv() != null ? null : ChatModels.build(spec, key);
        this.prompts = new PromptBuilder(templates, spec.templates(), spec.repairRounds());
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

    @Override
    public Proposal propose(ProposalRequest request) {
        PromptBuilder.Prompt prompt;
        try {
            prompt = prompts.forProposal(request);
        } catch (RuntimeException e) {
            throw new AgentException("could not build the prompt: " + RetryPolicy.describe(e), e);
        }
        return ask(prompt, prompt.template());
    }

    @Override
    public Optional<Proposal> repair(RepairRequest request) {
        Verdict verdict = request.failed().result() == null ? null : request.failed().result().verdict();
        if (request.round() > spec.repairRounds() || verdict == null || verdict.passed()
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

    private Proposal ask(PromptBuilder.Prompt prompt, String operator) {
        String transcript = prompt.transcript();
        if (model == null) {
            throw new AgentException("environment variable " + spec.apiKeyEnv() + " is not set",
                    new ModelCall(transcript, "", usage(0, 0, null)));
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
            answered = retry.run(() -> model.chat(ChatRequest.builder()
                    .messages(SystemMessage.from(prompt.system()), UserMessage.from(prompt.user())).build()));
        } catch (RetryPolicy.Failed e) {
            throw new AgentException(e.getMessage(), new ModelCall(transcript, "",
                    new ModelUsage(label(), millisSince(start), e.attempts(), 0, 0, 0)));
        } finally {
            slots.release();
        }
        ChatResponse response = answered.value();
        String text = response.aiMessage() == null || response.aiMessage().text() == null ? ""
                : response.aiMessage().text();
        ModelUsage usage = usage(millisSince(start), answered.attempts(), response.tokenUsage());
        ModelCall call = new ModelCall(transcript, recorded(text), usage);
        try {
            FinishReason finish = response.finishReason();
            if (finish == FinishReason.LENGTH) {
                throw new AgentException("answer cut short: the model stopped at max_output_tokens ("
                        + spec.maxOutputTokens() + ") before finishing", call);
            }
            if (finish == FinishReason.CONTENT_FILTER) {
                throw new AgentException("the provider's content filter stopped the answer", call);
            }
            AnswerParser.Parsed parsed = AnswerParser.parse(text, prompt.base());
            String summary = prompt.subject() + " by " + spec.model()
                    + (parsed.summary().isEmpty() ? "" : ": " + parsed.summary());
            return new Proposal(parsed.source(), Optional.empty(), operator, summary, Optional.of(call));
        } catch (AnswerParser.Unusable e) {
            throw new AgentException(e.getMessage(), call);
        } catch (AgentException e) {
            throw e;
        } catch (RuntimeException e) {
            // A bug of kevo's on an odd answer still must not stop the campaign; the record keeps the answer.
            throw new AgentException("could not read the answer: " + RetryPolicy.describe(e), call);
        }
    }

    private ModelUsage usage(double latencyMs, int attempts, TokenUsage tokens) {
        long in = tokens == null || tokens.inputTokenCount() == null ? 0 : tokens.inputTokenCount();
        long out = tokens == null || tokens.outputTokenCount() == null ? 0 : tokens.outputTokenCount();
        return new ModelUsage(label(), latencyMs, attempts, in, out, spec.cost(in, out));
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
