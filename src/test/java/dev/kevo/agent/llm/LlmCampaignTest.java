package dev.kevo.agent.llm;

import static dev.kevo.agent.llm.ModelServer.Reply;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.agent.Agent;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.PromptChoice;
import dev.kevo.data.Verdict;
import dev.kevo.evolve.AgentPool;
import dev.kevo.evolve.Campaign;
import dev.kevo.evolve.CampaignListener;
import dev.kevo.evolve.Judge;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real campaign loop with an LlmAgent talking to a loopback OpenAI-style server (and a test double for the
 * GPU): LLM-born mutants with their prompts, answers and usage on disk, a repair round after a compile error,
 * agent failures that do not stop the campaign, and the cost stop.
 */
class LlmCampaignTest {
    static final String PATH = "/v1/chat/completions";
    static final Pattern VARIANT = Pattern.compile("#define VARIANT (\\d+)");
    static final String COMPILE_LOG = "k.cu(3): error: identifier \"BROKEN\" is undefined";

    final ModelServer server = new ModelServer();
    final List<Duration> pauses = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger answers = new AtomicInteger();

    @AfterEach
    void close() {
        server.close();
    }

    static String kernel(int variant, boolean broken) {
        return """
                /*@kevo {"plans": [{"launches": [{"kernel": "k", "grid": "rows", "block": 32, "args": ["x", "y"]}]}]} */
                #define VARIANT %d
                extern "C" __global__ void k(const float* x, float* y) { y[threadIdx.x] = x[threadIdx.x]%s * VARIANT; }
                """.formatted(variant, broken ? " * BROKEN" : "");
    }

    /**
     * Like a model that is right most of the time: a repair prompt gets the file fixed; of the other answers
     * every fourth is chatter with no code, every fourth a file that does not compile, the rest new files.
     */
    Reply answer(ModelServer.Request request) {
        int n = answers.incrementAndGet();
        String prompt = request.prompt();
        String text;
        if (prompt.contains("repair round")) {
            text = "Change: BROKEN was never defined; dropped it.\n\n```cuda\n" + kernel(100 + n, false) + "```\n";
        } else if (n % 4 == 0) {
            text = "The kernel looks optimal already; I would not change anything.";
        } else if (n % 4 == 1) {
            text = "Change: scale by BROKEN.\n\n```cuda\n" + kernel(100 + n, true) + "```\n";
        } else {
            text = "Change: variant " + (100 + n) + ".\n\n```cuda\n" + kernel(100 + n, false) + "```\n";
        }
        return Reply.ok(ModelServer.openAiWithContent(text));
    }

    /** Compile error for BROKEN, otherwise a pass scored by the variant number. */
    static final class FakeGpu implements Judge {
        @Override
        public CandidateResult evaluate(KernelFile file, long inputSeed) {
            if (file.source().contains("BROKEN")) {
                return Fixtures.result(Verdict.COMPILE_ERROR, COMPILE_LOG, null, null,
                        COMPILE_LOG + "\n1 error detected in the compilation of \"k.cu\".", List.of(), List.of());
            }
            Matcher m = VARIANT.matcher(file.source());
            assertTrue(m.find(), file.source());
            double score = 1 + Integer.parseInt(m.group(1)) / 1000.0;
            return Fixtures.result(Verdict.PASS, null, score, 0.5, null, List.of(), List.of());
        }
    }

    CampaignConfig config(Path dir, String stop) throws Exception {
        Path yaml = dir.resolve("llm.yaml");
        Files.writeString(yaml, """
                name: llm
                suite: tiny
                islands: 2
                population: 3
                children_per_generation: 2
                migration_interval: 2
                random_seed: 7
                agents:
                  - name: gpt
                    weight: 1
                    model:
                      provider: openai-compatible
                      model: kevo-test
                      base_url: %s
                      api_key_env: KEVO_TEST_KEY
                      timeout_seconds: 5
                      retries: 2
                      concurrency: 2
                      price_input: 2.0
                      price_output: 8.0
                      repair_rounds: 2
                      templates: {improve: 1, explore: 1}
                stop:
                %s
                """.formatted(server.url("/v1"), stop.indent(2)));
        return CampaignConfig.load(yaml);
    }

    CampaignState run(Path dir, CampaignConfig config) {
        CampaignStore store = CampaignStore.create(dir.resolve("c"), FrozenCampaign.of("test", "now", config,
                EvalSettings.defaults(), "tiny", List.of("4x100"), "b"), kernel(1, false));
        Agent gpt = Fixtures.agent(config.agents().getFirst().model(), Map.of("KEVO_TEST_KEY", "sk-x"), pauses);
        List<KernelFile> seeds = List.of(ContractParser.parse("one.cu", null, kernel(1, false)),
                ContractParser.parse("two.cu", null, kernel(2, false)));
        return new Campaign(config, store, new FakeGpu(), new AgentPool(config.agents(), Map.of("gpt", gpt)), seeds,
                Fixtures.CONTEXT, CampaignListener.NONE, System::currentTimeMillis).run();
    }

    @Test
    void modelBornMutantsAreRecordedRepairedAndFailuresDoNotStopTheCampaign(@TempDir Path dir) throws Exception {
        server.enqueue(PATH, Reply.status(429, ModelServer.recorded("openai-429.json")));
        server.fallback(PATH, this::answer);
        CampaignState state = run(dir, config(dir, "generations: 3"));
        CampaignStore store = CampaignStore.open(dir.resolve("c"));
        assertEquals(3, state.generation(), "the campaign ran its generations despite agent failures");

        List<MutantRecord> byModel = store.mutants().stream().filter(m -> m.agent().equals("gpt"))
                .filter(m -> m.model().attempts() > 0).toList();  // a prompt already sent in its generation is not sent
        assertFalse(byModel.isEmpty());
        for (MutantRecord m : byModel) {
            assertEquals("gpt (kevo-test)", m.model().model(), m.id());
            assertEquals(3121, m.model().inputTokens(), m.id());
            assertEquals((3121 * 2.0 + 1460 * 8.0) / 1e6, m.model().cost(), 1e-12, m.id());
            assertTrue(store.prompt(m.id()).orElseThrow().contains("## user"), m.id());
            assertTrue(store.answer(m.id()).isPresent(), m.id());
        }
        assertTrue(byModel.stream().anyMatch(m -> m.model().attempts() == 2), "the 429 was retried and counted");
        assertEquals((3121 * 2.0 + 1460 * 8.0) / 1e6 * byModel.size(), state.spend().cost(), 1e-9);

        MutantRecord born = byModel.stream().filter(m -> m.passed() && !m.operator().equals("repair")).findFirst()
                .orElseThrow();
        assertTrue(born.operator().equals("improve") || born.operator().equals("explore"), born.operator());
        assertTrue(born.summary().contains("by kevo-test: variant "), born.summary());
        String prompt = store.prompt(born.id()).orElseThrow();
        assertTrue(prompt.contains("### Parent `" + born.parents().getFirst() + "`: pass, score"), prompt);
        assertTrue(prompt.contains("NVIDIA H100 80GB HBM3"), "the device from the campaign's task context");

        MutantRecord repair = byModel.stream().filter(m -> m.operator().equals("repair")).findFirst().orElseThrow();
        MutantRecord broken = store.mutant(repair.parents().getFirst()).orElseThrow();
        assertEquals(Verdict.COMPILE_ERROR, broken.result().verdict());
        assertTrue(repair.id().startsWith(broken.id().replaceFirst("-r\\d+$", "") + "-r"), repair.id());
        String repairPrompt = store.prompt(repair.id()).orElseThrow();
        assertTrue(repairPrompt.contains(COMPILE_LOG), "the compiler log went back: " + repairPrompt);
        assertTrue(repairPrompt.contains("x[threadIdx.x] * BROKEN * VARIANT"), "with the failed source");
        assertTrue(repair.passed(), "the repaired file compiles");

        List<MutantRecord> failures = byModel.stream()
                .filter(m -> m.result().verdict() == Verdict.AGENT_FAILURE).toList();
        assertFalse(failures.isEmpty());
        for (MutantRecord f : failures) {
            assertTrue(f.result().detail().startsWith("no code block"), f.result().detail());
            assertEquals("The kernel looks optimal already; I would not change anything.",
                    store.answer(f.id()).orElseThrow());
        }
    }

    @Test
    void noTwoRequestsOfAGenerationShareAPrompt(@TempDir Path dir) throws Exception {
        server.fallback(PATH, this::answer);
        Path yaml = dir.resolve("llm.yaml");
        CampaignConfig base = config(dir, "generations: 2");
        Files.writeString(yaml, Files.readString(yaml).replace("children_per_generation: 2",
                "children_per_generation: 4").replace("repair_rounds: 2", "repair_rounds: 0")
                .replace("timeout_seconds: 5", "timeout_seconds: 5\n      temperature: 0.6"));
        run(dir, CampaignConfig.load(yaml));
        CampaignStore store = CampaignStore.open(dir.resolve("c"));

        List<String> prompts = server.requests(PATH).stream().map(ModelServer.Request::prompt).toList();
        assertTrue(prompts.size() >= 8, "two islands of four children each asked: " + prompts.size());
        assertEquals(prompts.size(), new HashSet<>(prompts).size(), "every prompt the server saw is new");
        List<Double> temperatures = server.requests(PATH).stream().map(r -> r.json().get("temperature").asDouble())
                .distinct().toList();
        assertTrue(temperatures.size() > 1, "temperatures vary where the provider takes one: " + temperatures);

        List<MutantRecord> first = store.mutants().stream().filter(m -> m.generation() == 1).toList();
        assertEquals(8, first.size());
        assertTrue(first.stream().allMatch(m -> m.model().attempts() > 0), "told apart, none left unsent: " + first);
        List<PromptChoice> choices = first.stream().map(m -> m.model().request()).toList();
        assertEquals(choices.size(), new HashSet<>(choices).size(), "each request differed, and its record says how");
        assertTrue(choices.stream().map(PromptChoice::focus).distinct().count() > 1, "" + choices);
        assertTrue(choices.stream().map(PromptChoice::parent).distinct().count() > 1,
                "not always the best seed: " + choices);
    }

    /**
     * A model answer whose plan expression is 8000 terms (the corpus's deep_expression.cu) once overflowed the stack
     * where the campaign read it, and that ended the campaign. Now it is that mutant's contract-error.
     */
    @Test
    void anAnswerWithAnExpressionPastTheLimitsIsItsMutantsContractErrorNotTheCampaignsEnd(@TempDir Path dir)
            throws Exception {
        String deep = Files.readString(dev.kevo.TestFiles.root().resolve("evaluator/adversarial/deep_expression.cu"));
        server.fallback(PATH, request -> answers.incrementAndGet() % 2 == 1
                ? Reply.ok(ModelServer.openAiWithContent("Change: a longer grid.\n\n```cuda\n" + deep + "```\n"))
                : answer(request));
        CampaignState state = run(dir, config(dir, "generations: 2"));
        assertEquals(2, state.generation(), "the campaign ran its generations");
        List<MutantRecord> refused = CampaignStore.open(dir.resolve("c")).mutants().stream()
                .filter(m -> m.result().verdict() == Verdict.CONTRACT_ERROR).toList();
        assertFalse(refused.isEmpty(), "the deep answers were judged");
        for (MutantRecord m : refused) {
            assertTrue(m.result().detail().contains("'grid': 'cdiv(rows, 8) + 0 + 0")
                    && m.result().detail().contains("1000-character limit"), m.result().detail());
        }
    }

    @Test
    void theCostStopEndsTheCampaign(@TempDir Path dir) throws Exception {
        server.fallback(PATH, this::answer);
        CampaignState state = run(dir, config(dir, "cost: 0.05"));
        double perCall = (3121 * 2.0 + 1460 * 8.0) / 1e6;
        assertTrue(state.spend().cost() >= 0.05, "" + state.spend());
        // Children of a generation already asked when the budget ran out still finish: at most a generation's worth.
        assertTrue(state.spend().cost() <= 0.05 + perCall * 2 * 2 * 3, "" + state.spend());
        // Answers that arrive after the budget is spent are not judged, and the campaign does not record them
        // (their cost is missing from its total): it counts at most what was asked.
        long counted = Math.round(state.spend().cost() / perCall);
        assertTrue(counted >= 3 && counted <= server.requests(PATH).size(), counted + " of "
                + server.requests(PATH).size());
        String events = Files.readString(dir.resolve("c/events.jsonl"));
        assertTrue(events.contains("\"reason\":\"cost: "), events);
    }
}
