package dev.kevo.evolve;

import dev.kevo.agent.Proposal;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.MutantRecord;
import dev.kevo.eval.SplitMix;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.KernelFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;

/**
 * The evolution loop: islands of kernels, each generation a few children per island proposed by the agents
 * and judged by the evaluator, elitist survival, and every few generations each island's best joining the
 * next island.
 *
 * <p>The children of a generation are made concurrently, so a model's answer is awaited while the GPU judges
 * another child, and several GPUs judge at once; agents bound their own concurrency, the evaluator its own.
 * What each child is stays deterministic: its randomness derives from the campaign's seed and its position,
 * it sees the generation's starting state only, and when two children of a generation have the same source
 * the one earlier in the generation is judged and the other reuses its result. Every mutant is saved as it
 * is judged, so a campaign killed at any moment resumes where it was: the generation in progress is replayed,
 * its already-judged children read back from disk, not re-evaluated.
 *
 * <p>A child that an agent can repair (a model, given the compiler log or the mismatch) goes back to it until
 * it passes or the agent stops; each round is a mutant of its own whose parent is the failed one.
 *
 * <p>This class is the loop itself; its parts: {@link Budget} (what is spent, and when to stop), {@link Recorder}
 * (each source judged once, every mutant recorded, the champion), {@link Breeding} (a generation's children and
 * their repairs), {@link ChampionConfirmation} (the best few judged again on one device, at scale) and
 * {@link ChampionSanitizer} (no champion named unsanitized), and {@link DrawAhead} (the next generation's first
 * children compiled while this one's last are judged).
 */
public final class Campaign {
    /** How many of the best a campaign judges again (on one device, at scale) before naming its champion. */
    static final int CONTENDERS = 3;
    /** Knobbed kernels an agent is shown as evidence of which knob values did best. */
    static final int RELATIVES = 64;

    private final CampaignConfig config;
    private final CampaignStore store;
    private final AgentPool agents;
    private final List<KernelFile> seeds;
    private final TaskContext context;
    private final CampaignListener listener;
    private final Budget budget;
    private final Recorder recorder;
    private final ChampionConfirmation confirmation;
    private final ChampionSanitizer sanitizer;
    private final DrawAhead drawAhead;

    public Campaign(CampaignConfig config, CampaignStore store, Judge evaluations, AgentPool agents,
                    List<KernelFile> seeds, TaskContext context, CampaignListener listener, LongSupplier clockMillis) {
        this.config = config;
        this.store = store;
        this.agents = agents;
        this.seeds = List.copyOf(seeds);
        this.context = context;
        this.listener = listener;
        this.budget = new Budget(config.stop(), clockMillis);
        this.recorder = new Recorder(store, evaluations, budget, listener);
        this.confirmation = new ChampionConfirmation(evaluations, store, recorder, CONTENDERS);
        this.sanitizer = new ChampionSanitizer(evaluations, store, recorder);
        this.drawAhead = new DrawAhead(config, agents, context, recorder, budget, evaluations, store);
    }

    /** Runs (or resumes) until a stop condition holds; returns the final state. */
    public CampaignState run() {
        budget.start();
        for (MutantRecord m : store.mutants()) {
            recorder.load(m);
        }
        Optional<CampaignState> saved = store.state();
        store.event(recorder.size() == 0 ? "started" : "resumed", Map.of("generation",
                saved.map(CampaignState::generation).orElse(0), "mutants", recorder.size()));
        try (ExecutorService children = Executors.newVirtualThreadPerTaskExecutor()) {
            // A resume carries the earlier runs' time and evaluations; a new campaign has counted its seeds as it
            // judged them, and their time is this run's own (carrying it as well would count it twice).
            saved.ifPresent(budget::continueFrom);
            CampaignState state = saved.orElseGet(() -> evaluateSeeds(children));
            while (true) {
                Optional<String> stop = budget.stopReason(state.generation(), state.stale());
                if (stop.isPresent()) {
                    CampaignState confirmed = sanitizer.sanitize(confirmation.confirm(state));
                    // Not saved: state.json counts only whole generations, which a resume replays from.
                    CampaignState finished = snapshot(confirmed.generation(), confirmed.islands(), confirmed.stale());
                    MutantRecord champion = recorder.champion();
                    store.event("finished", Map.of("reason", stop.get(), "generation", finished.generation(),
                            "evaluations", finished.evaluations(), "champion", champion == null ? "" : champion.id()));
                    listener.finished(finished, champion, stop.get());
                    return finished;
                }
                budget.generationStarted();
                Optional<CampaignState> next = generation(state, children);
                budget.generationEnded();
                if (next.isEmpty()) {
                    continue;  // stopped mid-generation: the loop reports why
                }
                state = next.get();
            }
        }
    }

    /** The seeds, judged side by side like a generation's children (each on whichever device is free). */
    private CampaignState evaluateSeeds(ExecutorService children) {
        List<Future<MutantRecord>> running = new ArrayList<>();
        for (int s = 0; s < seeds.size(); s++) {
            KernelFile seed = seeds.get(s);
            long inputSeed = SplitMix.derive(config.randomSeed(), 0, s);
            running.add(children.submit(() -> seed(seed, inputSeed)));
        }
        List<MutantRecord> seeded = awaitAll(running, () -> {
        });
        List<String> members = seeded.stream().sorted(Selection.BEST_FIRST).limit(config.population())
                .map(MutantRecord::id).toList();
        List<List<String>> islands = new ArrayList<>();
        for (int i = 0; i < config.islands(); i++) {
            islands.add(members);
        }
        CampaignState state = snapshot(0, islands, 0);
        store.saveState(state);
        return state;
    }

    private MutantRecord seed(KernelFile seed, long inputSeed) {
        String id = MutantRecord.seedId(seed.name());
        MutantRecord record = recorder.recovered(id);
        if (record != null) {
            return record;
        }
        return recorder.judge(new Recorder.Made(id, List.of(), 0, -1, MutantRecord.SEED, new Proposal(seed.source(),
                Optional.empty(), "seed", "hand-written seed " + seed.name(), Optional.empty())), inputSeed, null,
                        () -> {
                }).orElseThrow();
    }

    /** One generation over all islands; empty when a stop condition interrupted it. */
    private Optional<CampaignState> generation(CampaignState state, ExecutorService children) {
        int gen = state.generation() + 1;
        List<List<MutantRecord>> islands = state.islands().stream()
                .map(ids -> ids.stream().map(recorder::get).toList()).toList();
        MutantRecord championBefore = recorder.champion();
        Breeding breeding = new Breeding(config, agents, context, recorder, budget, gen, islands,
                recorder.recentFailures(), recorder.knobbedRelatives(gen, RELATIVES));
        List<Breeding.Child> slots = breeding.children();
        DrawAhead.Generation drawing = drawAhead.follow(gen, islands, breeding, children);
        List<Future<List<MutantRecord>>> running = new ArrayList<>();
        for (int s = 0; s < slots.size(); s++) {
            int slot = s;
            running.add(children.submit(() -> drawing.judged(slot, slots.get(slot).run())));
        }
        List<List<MutantRecord>> made = awaitAll(running, breeding::releaseAll);
        drawing.awaitDraw();
        if (made.stream().anyMatch(List::isEmpty)) {
            return Optional.empty();
        }
        List<List<MutantRecord>> next = Selection.nextGeneration(islands, breeding.offspring(made),
                config, gen);
        if (Selection.migrates(config, gen, next.size())) {
            store.event("migrated", Map.of("generation", gen));
        }
        MutantRecord champion = recorder.champion();
        boolean improved = champion != null && (championBefore == null || !champion.id().equals(championBefore.id()));
        CampaignState after = snapshot(gen, next.stream().map(l -> l.stream().map(MutantRecord::id).toList()).toList(),
                improved ? 0 : state.stale() + 1);
        store.saveState(after);
        store.event("generation", Map.of("generation", gen, "evaluations", budget.evaluated(),
                "champion", after.bestId() == null ? "" : after.bestId(),
                "score", champion == null ? 0 : champion.fitness()));
        listener.generationEnded(after, champion);
        return Optional.of(after);
    }

    /**
     * Every child's result, in order. The first failure stops the others, as a kill would: {@code beforeCancel}
     * runs first, then the rest are cancelled and the failure is rethrown.
     */
    private static <T> List<T> awaitAll(List<Future<T>> running, Runnable beforeCancel) {
        List<T> results = new ArrayList<>();
        try {
            for (Future<T> f : running) {
                results.add(await(f));
            }
        } catch (RuntimeException | Error e) {
            beforeCancel.run();
            running.forEach(f -> f.cancel(true));
            throw e;
        }
        return results;
    }

    /** A child's result, or what it failed with. */
    static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null
                    ? c.getCause() : e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private CampaignState snapshot(int generation, List<List<String>> islands, int stale) {
        MutantRecord champion = recorder.champion();
        return budget.state(generation, islands, champion == null ? null : champion.id(), stale);
    }
}
