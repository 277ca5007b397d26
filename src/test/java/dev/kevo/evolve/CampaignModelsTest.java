package dev.kevo.evolve;

import static dev.kevo.evolve.CampaignTest.gene;
import static dev.kevo.evolve.CampaignTest.kernel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.agent.Agent;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.ModelCall;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RepairRequest;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.ModelUsage;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.KernelFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaign with agents that behave like models: slow answers overlapping evaluation, repairs of failed
 * children, prompts and costs recorded, the cost stop, and champions confirmed on one device.
 */
class CampaignModelsTest {

    /** Like a model: slow, costs 0.01 a call, every third answer unusable, repairs a wrong kernel by adding 1. */
    static final class ModelLike implements Agent {
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();
        /**
         * Every answer but a generation's first is held until this holds (at most 10 s), as slow answers would be:
         * the first child is judged, in order, while the others' calls are in flight.
         */
        volatile BooleanSupplier holdLaterAnswersUntil = () -> true;

        @Override
        public String name() {
            return "model";
        }

        private ModelCall call(String prompt, String answer) {
            return new ModelCall(prompt, answer, ModelUsage.of("model (fake-1)", 30, 1, 1000, 200, 0.01));
        }

        @Override
        public Proposal propose(ProposalRequest request) {
            inFlight.incrementAndGet();
            try {
                Thread.sleep(30);
                if (request.slot().variant() > 0) {
                    long end = System.nanoTime() + 10_000_000_000L;
                    while (!holdLaterAnswersUntil.getAsBoolean() && System.nanoTime() < end) {
                        Thread.sleep(5);
                    }
                }
                int g = gene(request.parent().source());
                int child = g + request.random().nextInt(1, 8);
                String prompt = "improve " + request.parent().id();
                if (calls.incrementAndGet() % 3 == 0 && child % 7 != 0) {
                    throw new AgentException("no code block in the answer", call(prompt, "I think it is fine."));
                }
                return new Proposal(kernel(child), Optional.empty(), "improve", "gene " + g + "->" + child,
                        Optional.of(call(prompt, "```cuda\n" + kernel(child) + "```")));
            } catch (InterruptedException e) {
                throw new AgentException("interrupted", e);
            } finally {
                inFlight.decrementAndGet();
            }
        }

        @Override
        public Optional<Proposal> repair(RepairRequest request) {
            if (request.round() > 2) {
                return Optional.empty();
            }
            int g = gene(request.failed().source());
            String prompt = "fix " + request.failed().id() + ": " + request.failed().result().detail();
            return Optional.of(new Proposal(kernel(g + 1), Optional.empty(), "repair", "gene " + g + "->" + (g + 1),
                    Optional.of(call(prompt, "```cuda\n" + kernel(g + 1) + "```"))));
        }
    }

    static CampaignConfig config(int generations, double cost) {
        return CampaignConfig.builder().name("t").suite("tiny").baseline("b").randomSeed(42L).islands(3)
                .population(4).childrenPerGeneration(3).migrationInterval(2)
                .selection(new CampaignConfig.Selection(2, 1, 0.0))
                .agents(List.of(new CampaignConfig.AgentWeight("model", 1.0, null)))
                .stop(new CampaignConfig.Stop(0, 0.0, generations, 0, cost)).build().validated();
    }

    static CampaignState run(CampaignStore store, CampaignConfig config, Agent agent, Judge gpu) {
        return new Campaign(config, store, gpu, new AgentPool(config.agents(), Map.of("model", agent)),
                CampaignTest.seeds(), null, CampaignListener.NONE, () -> 0L).run();
    }

    @Test
    void modelAnswersAreAwaitedWhileTheGpuJudgesAnotherChild(@TempDir Path dir) {
        ModelLike model = new ModelLike();
        AtomicBoolean overlapped = new AtomicBoolean();
        // Holding answers until the GPU judged something makes the overlap certain when the campaign allows it,
        // however the machine schedules the children; a campaign that serialises them fails after 10 s.
        model.holdLaterAnswersUntil = overlapped::get;
        Judge gpu = (file, seed) -> {
            if (model.inFlight.get() > 0) {
                overlapped.set(true);
            }
            return new CampaignTest.FakeGpu(Integer.MAX_VALUE).evaluate(file, seed);
        };
        CampaignConfig config = config(3, 0);
        run(CampaignTest.store(dir.resolve("c"), config), config, model, gpu);
        assertTrue(overlapped.get(), "some evaluation ran while a model call was in flight");
    }

    @Test
    void aWrongChildGoesBackToItsModelAndEachRoundIsItsOwnMutant(@TempDir Path dir) {
        CampaignConfig config = config(4, 0);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        run(store, config, new ModelLike(), new CampaignTest.FakeGpu(Integer.MAX_VALUE));
        List<MutantRecord> repairs = store.mutants().stream().filter(m -> m.operator().equals("repair")).toList();
        assertFalse(repairs.isEmpty(), "genes divisible by 7 are wrong and get repaired");
        for (MutantRecord r : repairs) {
            MutantRecord failed = store.mutant(r.parents().getFirst()).orElseThrow();
            assertEquals(Verdict.WRONG_RESULT, failed.result().verdict(), r.id() + " repairs a wrong child");
            assertTrue(r.id().startsWith(failed.id().replaceFirst("-r\\d+$", "") + "-r"), r.id());
            assertEquals(gene(store.source(failed.id())) + 1, gene(store.source(r.id())));
            assertTrue(store.prompt(r.id()).orElseThrow().contains(failed.id()), "the prompt names the failure");
        }
    }

    @Test
    void promptsAnswersAndCostAreRecordedWithEachMutantAndAgentFailure(@TempDir Path dir) throws Exception {
        CampaignConfig config = config(3, 0);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        CampaignState state = run(store, config, new ModelLike(), new CampaignTest.FakeGpu(Integer.MAX_VALUE));
        List<MutantRecord> byModel = store.mutants().stream().filter(m -> m.agent().equals("model")).toList();
        List<MutantRecord> failures = byModel.stream()
                .filter(m -> m.result().verdict() == Verdict.AGENT_FAILURE).toList();
        assertFalse(failures.isEmpty(), "every third answer is unusable");
        assertTrue(byModel.size() > failures.size(), "and the campaign went on");
        for (MutantRecord m : byModel) {
            assertEquals(0.01, m.model().cost(), 1e-12, m.id());
            assertTrue(Files.exists(dir.resolve("c/" + m.id() + ".prompt.md")), m.id());
        }
        failures.forEach(f -> assertEquals("I think it is fine.", store.answer(f.id()).orElseThrow()));
        assertEquals(byModel.size() * 0.01, state.spend().cost(), 1e-9);
        assertEquals(byModel.size() * 1000L, state.spend().inputTokens());
    }

    @Test
    void theCostStopEndsTheCampaignWithinOneGenerationOfTheBudget(@TempDir Path dir) {
        CampaignConfig config = config(0, 0.15);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        CampaignState state = run(store, config, new ModelLike(), new CampaignTest.FakeGpu(Integer.MAX_VALUE));
        assertTrue(state.spend().cost() >= 0.15, "stopped at the budget: " + state.spend());
        int perGeneration = config.islands() * config.childrenPerGeneration() * (1 + 2);
        assertTrue(state.spend().cost() < 0.15 + perGeneration * 0.01 + 1e-9, "not far past it: " + state.spend());
    }

    @Test
    void withSeveralDevicesTheBestAreJudgedAgainOnOneAndTheBestConfirmedIsChampion(@TempDir Path dir)
            throws Exception {
        CampaignConfig config = config(3, 0);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        CampaignTest.FakeGpu scores = new CampaignTest.FakeGpu(Integer.MAX_VALUE);
        AtomicInteger confirmations = new AtomicInteger();
        Judge twoDevices = new Judge() {
            @Override
            public CandidateResult evaluate(KernelFile file, long inputSeed) {
                return scores.evaluate(file, inputSeed).toBuilder().device("1 fast").build();
            }

            /** On the confirming device, the higher the gene the slower: the recorded order flips. */
            @Override
            public CandidateResult confirm(KernelFile file, long inputSeed) {
                confirmations.incrementAndGet();
                CandidateResult r = scores.evaluate(file, inputSeed);
                return CandidateResult.builder(r.name(), Verdict.PASS, inputSeed).score(10.0 - r.score().speedup(), 0.5)
                        .compiled(1.0, null, null).evaluationMs(1.0).device("0 slow").build();
            }
        };
        CampaignState state = run(store, config, new ModelLike(), twoDevices);
        Confirmation confirmation = store.confirmation().orElseThrow();
        assertEquals(Campaign.CONTENDERS, confirmations.get());
        assertEquals("0 slow", confirmation.device());
        Confirmation.Entry lastRecorded = confirmation.entries().getLast();
        assertEquals(lastRecorded.id(), confirmation.championId(), "the recorded third is the confirmed best");
        assertEquals(confirmation.championId(), state.bestId());
        assertEquals(store.source(state.bestId()), Files.readString(dir.resolve("c/champion.cu")));
    }
}
