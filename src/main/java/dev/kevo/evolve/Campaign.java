package dev.kevo.evolve;

import dev.kevo.campaign.CampaignConfig;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kevo.agent.Agent;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.Candidate;
import dev.kevo.agent.ModelCall;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RepairRequest;
import dev.kevo.agent.TaskContext;
import dev.kevo.result.CandidateResult;
import dev.kevo.eval.Seeds;
import dev.kevo.result.Verdict;
import dev.kevo.campaign.CampaignState;
import dev.kevo.store.CampaignStore;
import dev.kevo.campaign.Confirmation;
import dev.kevo.campaign.MutantRecord;
import dev.kevo.store.SourceHash;
import dev.kevo.campaign.Spend;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
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
 */
public final class Campaign {
    private static final int RECENT_FAILURES = 5;
    /** Whatever an agent says, a child's repairs end here. */
    static final int MAX_REPAIR_ROUNDS = 8;
    /** How many of the best a multi-device campaign judges again on one device before naming its champion. */
    static final int CONTENDERS = 3;
    /** Knobbed kernels an agent is shown as evidence of which knob values did best. */
    static final int RELATIVES = 64;

    private final CampaignConfig config;
    private final CampaignStore store;
    private final Evaluations evaluations;
    private final AgentPool agents;
    private final List<KernelFile> seeds;
    private final TaskContext context;
    private final CampaignListener listener;
    private final LongSupplier clock;

    /** Guards everything below: children of a generation are judged on several threads. */
    private final Object lock = new Object();
    private final Map<String, MutantRecord> byId = new HashMap<>();
    private final Map<String, CompletableFuture<MutantRecord>> byHash = new HashMap<>();
    private final Deque<MutantRecord> recentFailures = new ArrayDeque<>();
    private MutantRecord champion;
    private Spend spend = Spend.NONE;
    private int evaluated;
    private long runStart;
    private long elapsedBefore;

    public Campaign(CampaignConfig config, CampaignStore store, Evaluations evaluations, AgentPool agents,
                    List<KernelFile> seeds, TaskContext context, CampaignListener listener, LongSupplier clockMillis) {
        this.config = config;
        this.store = store;
        this.evaluations = evaluations;
        this.agents = agents;
        this.seeds = List.copyOf(seeds);
        this.context = context;
        this.listener = listener;
        this.clock = clockMillis;
    }

    /** Runs (or resumes) until a stop condition holds; returns the final state. */
    public CampaignState run() {
        runStart = clock.getAsLong();
        for (MutantRecord m : store.mutants()) {
            remember(m);
        }
        Optional<CampaignState> saved = store.state();
        store.event(byId.isEmpty() ? "started" : "resumed", Map.of("generation",
                saved.map(CampaignState::generation).orElse(0), "mutants", byId.size()));
        try (ExecutorService children = Executors.newVirtualThreadPerTaskExecutor()) {
            CampaignState state = saved.orElseGet(() -> evaluateSeeds(children));
            elapsedBefore = state.elapsedMillis();
            evaluated = state.evaluations();
            while (true) {
                Optional<String> stop = stopReason(state);
                if (stop.isPresent()) {
                    CampaignState confirmed = confirmChampion(state);
                    // Not saved: state.json counts only whole generations, which a resume replays from.
                    CampaignState finished = snapshot(confirmed.generation(), confirmed.islands(), confirmed.stale());
                    store.event("finished", Map.of("reason", stop.get(), "generation", finished.generation(),
                            "evaluations", finished.evaluations(), "champion", champion == null ? "" : champion.id()));
                    listener.finished(finished, champion, stop.get());
                    return finished;
                }
                Optional<CampaignState> next = generation(state, children);
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
            long inputSeed = Seeds.derive(config.randomSeed(), 0, s);
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
        MutantRecord record = recovered(id);
        if (record != null) {
            return record;
        }
        return judge(new Made(id, List.of(), 0, -1, MutantRecord.SEED, new Proposal(seed.source(), Optional.empty(), "seed",
                "hand-written seed " + seed.name())), inputSeed, null).orElseThrow();
    }

    /** One generation over all islands; empty when a stop condition interrupted it. */
    private Optional<CampaignState> generation(CampaignState state, ExecutorService children) {
        int gen = state.generation() + 1;
        List<List<MutantRecord>> islands = state.islands().stream().map(ids -> ids.stream().map(byId::get).toList())
                .toList();
        String championBefore = champion == null ? null : champion.id();
        List<Candidate> failures;
        List<Candidate> relatives;
        synchronized (lock) {
            failures = recentFailures.stream().map(this::candidate).toList();
            relatives = knobbedRelatives(gen);
        }
        List<Slot> slots = new ArrayList<>();
        for (int i = 0; i < islands.size(); i++) {
            for (int c = 0; c < config.childrenPerGeneration(); c++) {
                slots.add(new Slot(gen, i, c, slots.size()));
            }
        }
        List<Future<List<MutantRecord>>> running = new ArrayList<>();
        for (Slot slot : slots) {
            running.add(children.submit(() -> slot.run(islands, failures, relatives, slots)));
        }
        // A child cancelled before it ran never says it has proposed, and later children wait for that: say it.
        List<List<MutantRecord>> made = awaitAll(running, () -> slots.forEach(s -> s.proposed.complete(null)));
        if (made.stream().anyMatch(List::isEmpty)) {
            return Optional.empty();
        }
        List<List<MutantRecord>> next = new ArrayList<>();
        for (int i = 0; i < islands.size(); i++) {
            List<MutantRecord> offspring = new ArrayList<>();
            for (int s = 0; s < slots.size(); s++) {
                if (slots.get(s).island == i) {
                    offspring.addAll(made.get(s));
                }
            }
            next.add(Selection.survivors(islands.get(i), offspring, config.population(),
                    config.selection().elitism()));
        }
        if (gen % config.migrationInterval() == 0 && next.size() > 1) {
            next = migrate(next);
            store.event("migrated", Map.of("generation", gen));
        }
        boolean improved = champion != null && !champion.id().equals(championBefore);
        CampaignState after = snapshot(gen, next.stream().map(l -> l.stream().map(MutantRecord::id).toList()).toList(),
                improved ? 0 : state.stale() + 1);
        store.saveState(after);
        store.event("generation", Map.of("generation", gen, "evaluations", evaluated,
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
    private static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c && c.getCause() != null
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

    /** Ring migration: each island's best replaces the worst of the next island, unless already there. */
    private static List<List<MutantRecord>> migrate(List<List<MutantRecord>> islands) {
        List<List<MutantRecord>> out = new ArrayList<>();
        for (int i = 0; i < islands.size(); i++) {
            MutantRecord incoming = islands.get((i - 1 + islands.size()) % islands.size()).stream()
                    .min(Selection.BEST_FIRST).orElseThrow();
            List<MutantRecord> members = new ArrayList<>(islands.get(i));
            members.sort(Selection.BEST_FIRST);
            if (members.stream().noneMatch(m -> m.sourceHash().equals(incoming.sourceHash()))) {
                if (!members.isEmpty()) {
                    members.removeLast();
                }
                members.add(incoming);
                members.sort(Selection.BEST_FIRST);
            }
            out.add(List.copyOf(members));
        }
        return out;
    }

    /** What an agent made, before judging: where it sits in the campaign and the proposal itself. */
    private record Made(String id, List<String> parents, int generation, int island, String agent,
                        Proposal proposal) {
    }

    /**
     * One child of a generation and its repairs. {@code proposed} completes once the child's source is
     * claimed in the cache, so that a later slot with the same source defers to it whatever the timing.
     */
    private final class Slot {
        final int gen;
        final int island;
        final int index;
        final int position;
        final CompletableFuture<Void> proposed = new CompletableFuture<>();

        Slot(int gen, int island, int index, int position) {
            this.gen = gen;
            this.island = island;
            this.index = index;
            this.position = position;
        }

        /** The child's records, repairs included; empty when the budget ran out before it was judged. */
        List<MutantRecord> run(List<List<MutantRecord>> islands, List<Candidate> failures, List<Candidate> relatives,
                               List<Slot> all) {
            try {
                return breed(islands, failures, relatives, all);
            } finally {
                proposed.complete(null);
            }
        }

        private List<MutantRecord> breed(List<List<MutantRecord>> islands, List<Candidate> failures,
                                         List<Candidate> relatives, List<Slot> all) {
            String id = String.format("g%04d-i%d-c%d", gen, island, index);
            List<MutantRecord> members = islands.get(island);
            SplittableRandom random = new SplittableRandom(Seeds.derive(config.randomSeed(), gen * 1000 + island,
                    index));
            MutantRecord parent = Selection.tournament(members, config.selection().tournamentSize(), random);
            Optional<MutantRecord> mate = Optional.empty();
            if (members.size() > 1 && random.nextDouble() < config.selection().crossoverRate()) {
                MutantRecord other = Selection.tournament(members, config.selection().tournamentSize(), random);
                mate = other.id().equals(parent.id()) ? Optional.empty() : Optional.of(other);
            }
            Agent agent = agents.pick(random);
            List<String> parents = mate.map(m -> List.of(parent.id(), m.id())).orElse(List.of(parent.id()));
            long inputSeed = Seeds.derive(config.randomSeed(), gen, island * 1000 + index);

            MutantRecord record = recovered(id);
            if (record == null) {
                if (budgetSpent()) {
                    return List.of();
                }
                List<Candidate> inspirations = new ArrayList<>();
                for (int other = 0; other < islands.size(); other++) {
                    if (other != island) {
                        islands.get(other).stream().min(Selection.BEST_FIRST).map(Campaign.this::candidate)
                                .ifPresent(inspirations::add);
                    }
                }
                Optional<MutantRecord> mateRecord = mate;
                record = attempt(id, parents, agent, inputSeed, () -> agent.propose(new ProposalRequest(context,
                        candidate(parent), mateRecord.map(Campaign.this::candidate), inspirations, failures, random,
                        relatives)),
                        all);
                if (record == null) {
                    return List.of();
                }
            }
            proposed.complete(null);
            List<MutantRecord> made = new ArrayList<>(List.of(record));
            for (int round = 1; round <= MAX_REPAIR_ROUNDS && repairable(record); round++) {
                String rid = id + "-r" + round;
                MutantRecord repaired = recovered(rid);
                if (repaired == null) {
                    if (budgetSpent()) {
                        break;
                    }
                    RepairRequest request = new RepairRequest(context, candidate(parent), candidate(record), round,
                            new SplittableRandom(Seeds.derive(config.randomSeed(), gen * 1000 + island,
                                    index * 100 + round)));
                    Optional<Proposal> retry;
                    long start = System.nanoTime();
                    try {
                        retry = agent.repair(request);
                    } catch (AgentException e) {
                        made.add(agentFailure(rid, List.of(record.id()), agent, e, inputSeed, start));
                        break;
                    }
                    if (retry.isEmpty()) {
                        break;
                    }
                    double agentMs = (System.nanoTime() - start) / 1e6;
                    repaired = judge(new Made(rid, List.of(record.id()), gen, island, agent.name(), retry.get()),
                            inputSeed, agentMs).orElse(null);
                    if (repaired == null) {
                        break;
                    }
                }
                made.add(repaired);
                record = repaired;
            }
            return made;
        }

        /** Proposes and judges, or records the agent's failure; null when the budget ran out first. */
        private MutantRecord attempt(String id, List<String> parents, Agent agent, long inputSeed,
                                     java.util.function.Supplier<Proposal> propose, List<Slot> all) {
            long start = System.nanoTime();
            Proposal proposal;
            try {
                proposal = propose.get();
            } catch (AgentException e) {
                return agentFailure(id, parents, agent, e, inputSeed, start);
            }
            double agentMs = (System.nanoTime() - start) / 1e6;
            for (Slot earlier : all.subList(0, position)) {
                earlier.proposed.join();
            }
            return judge(new Made(id, parents, gen, island, agent.name(), proposal), inputSeed, agentMs,
                    () -> proposed.complete(null)).orElse(null);
        }

        private MutantRecord agentFailure(String id, List<String> parents, Agent agent, AgentException e,
                                          long inputSeed, long startNanos) {
            synchronized (lock) {
                listener.agentFailed(agent.name(), e.getMessage());
            }
            e.call().ifPresent(call -> store.saveModelCall(id, call));
            MutantRecord failed = new MutantRecord(id, parents, gen, island, agent.name(), "failed", e.getMessage(),
                    null, null, null, CandidateResult.rejected(id, null, null, Verdict.AGENT_FAILURE, e.getMessage(),
                    inputSeed), (System.nanoTime() - startNanos) / 1e6, Instant.now().toString(),
                    e.call().map(ModelCall::usage).orElse(null));
            store.saveMutant(failed, "");
            remember(failed);
            return failed;
        }
    }

    /** A child judged before a kill, read back on resume (and counted again, as state.json predates it). */
    private MutantRecord recovered(String id) {
        synchronized (lock) {
            MutantRecord m = byId.get(id);
            if (m != null && m.judged()) {
                evaluated++;
            }
            return m;
        }
    }

    /** Failed to compile or gave wrong results, as opposed to an agent that answered nothing usable. */
    private static boolean repairable(MutantRecord m) {
        return !m.passed() && m.judged();
    }

    private Optional<MutantRecord> judge(Made made, long inputSeed, Double agentMs) {
        return judge(made, inputSeed, agentMs, () -> {
        });
    }

    /**
     * Judges a proposal once per distinct source: the first to claim a source evaluates it, later ones wait for
     * that and record where their result came from. {@code claimed} runs once the source is claimed or found.
     * Empty when the evaluation budget was spent before this one could start.
     */
    private Optional<MutantRecord> judge(Made made, long inputSeed, Double agentMs, Runnable claimed) {
        String source = made.proposal().source();
        String hash = SourceHash.of(source);
        CompletableFuture<MutantRecord> earlier;
        CompletableFuture<MutantRecord> mine = new CompletableFuture<>();
        synchronized (lock) {
            earlier = byHash.get(hash);
            if (earlier == null) {
                if (budgetSpent()) {
                    claimed.run();
                    unjudged(made);
                    return Optional.empty();
                }
                byHash.put(hash, mine);
                evaluated++;
            }
        }
        claimed.run();
        try {
            return Optional.of(record(made, source, hash, earlier, mine, inputSeed, agentMs));
        } catch (RuntimeException | Error e) {
            // Whoever waits on this source must not wait forever on a child that died (killed, interrupted).
            mine.completeExceptionally(e);
            throw e;
        }
    }

    /**
     * A model's answer that came back after the budget was spent: not judged, but paid for, so its cost counts and
     * its prompt and answer are kept.
     */
    private void unjudged(Made made) {
        made.proposal().call().ifPresent(call -> {
            store.saveModelCall(made.id(), call);
            spend = spend.plus(call.usage());
            store.event("unjudged", Map.of("id", made.id(), "agent", made.agent(), "cost", call.usage().cost()));
        });
    }

    private MutantRecord record(Made made, String source, String hash, CompletableFuture<MutantRecord> earlier,
                                CompletableFuture<MutantRecord> mine, long inputSeed, Double agentMs) {
        CandidateResult result;
        String cachedFrom = null;
        if (earlier != null) {
            MutantRecord first = earlier.join();
            result = first.result();
            cachedFrom = first.id();
        } else {
            result = evaluate(made.id(), source, inputSeed);
        }
        made.proposal().call().ifPresent(call -> store.saveModelCall(made.id(), call));
        JsonNode genome = made.proposal().genome().orElse(null);
        MutantRecord record = new MutantRecord(made.id(), made.parents(), made.generation(), made.island(),
                made.agent(), made.proposal().operator(), made.proposal().summary(), genome, hash, cachedFrom, result,
                agentMs, Instant.now().toString(), made.proposal().call().map(ModelCall::usage).orElse(null));
        store.saveMutant(record, source);
        mine.complete(record);
        boolean newChampion = remember(record);
        store.event("mutant", Map.of("id", made.id(), "generation", made.generation(), "island", made.island(),
                "agent", made.agent(), "verdict", result.verdict().id(),
                "score", record.passed() ? record.fitness() : 0, "cached", cachedFrom != null));
        synchronized (lock) {
            if (newChampion) {
                store.saveChampion(record, source);
                store.event("champion", Map.of("id", made.id(), "score", record.fitness()));
            }
            listener.evaluated(record, snapshot(made.generation(), List.of(), 0), champion);
        }
        return record;
    }

    private CandidateResult evaluate(String id, String source, long inputSeed) {
        KernelFile file;
        try {
            file = ContractParser.parse(id + ".cu", store.sourcePath(id), source);
        } catch (ContractException e) {
            return CandidateResult.rejected(id + ".cu", null, null, Verdict.CONTRACT_ERROR, e.getMessage(), inputSeed);
        }
        return evaluations.evaluate(file, inputSeed);
    }

    /** Indexes a record; true when it is the new champion. */
    private boolean remember(MutantRecord m) {
        synchronized (lock) {
            byId.put(m.id(), m);
            spend = spend.plus(m.model());
            if (m.sourceHash() != null && m.cachedFrom() == null) {
                byHash.putIfAbsent(m.sourceHash(), CompletableFuture.completedFuture(m));
            }
            if (m.result() != null && !m.passed() && m.result().verdict() != Verdict.AGENT_FAILURE
                    && m.sourceHash() != null) {
                recentFailures.addLast(m);
                if (recentFailures.size() > RECENT_FAILURES) {
                    recentFailures.removeFirst();
                }
            }
            if (m.beats(champion)) {
                champion = m;
                return true;
            }
            return false;
        }
    }

    /**
     * With several devices, the recorded scores of the best few were each measured on whichever device was free:
     * before the campaign names its champion, they are judged again side by side on one device, and the best of
     * those is the champion. Their results are kept in confirmation.json.
     */
    private CampaignState confirmChampion(CampaignState state) {
        if (!evaluations.confirms() || champion == null) {
            return state;
        }
        List<MutantRecord> top;
        synchronized (lock) {
            top = byId.values().stream().filter(m -> m.passed() && m.cachedFrom() == null)
                    .sorted(Selection.BEST_FIRST).limit(CONTENDERS).toList();
        }
        List<Confirmation.Entry> entries = new ArrayList<>();
        for (MutantRecord m : top) {
            KernelFile file = ContractParser.parse(m.id() + ".cu", store.sourcePath(m.id()), store.source(m.id()));
            entries.add(new Confirmation.Entry(m.id(), m.result().device(), m.fitness(),
                    evaluations.confirm(file, m.result().inputSeed())));
        }
        Confirmation confirmation = Confirmation.of(entries);
        store.saveConfirmation(confirmation);
        MutantRecord winner = byId.get(confirmation.championId());
        if (winner != null && !winner.id().equals(champion.id())) {
            champion = winner;
            store.saveChampion(winner, store.source(winner.id()));
        }
        store.event("confirmed", Map.of("champion", confirmation.championId(), "device", confirmation.device(),
                "score", confirmation.championScore()));
        CampaignState confirmed = new CampaignState(state.generation(), state.evaluations(), state.islands(),
                champion.id(), state.stale(), state.elapsedMillis(), state.spend());
        store.saveState(confirmed);
        return confirmed;
    }

    /**
     * The best judged kernels of earlier generations that declare knobs (their evidence of which values did best),
     * from the generation's starting state so that a replay sees the same.
     */
    private List<Candidate> knobbedRelatives(int generation) {
        return byId.values().stream().filter(m -> m.passed() && m.cachedFrom() == null && m.generation() < generation)
                .sorted(Selection.BEST_FIRST).map(this::candidate)
                .filter(c -> c.source().contains("\"knobs\"")).limit(RELATIVES).toList();
    }

    private Candidate candidate(MutantRecord m) {
        return new Candidate(m.id(), store.source(m.id()), Optional.ofNullable(m.genome()), m.result());
    }

    private CampaignState snapshot(int generation, List<List<String>> islands, int stale) {
        synchronized (lock) {
            return new CampaignState(generation, evaluated, islands, champion == null ? null : champion.id(), stale,
                    elapsed(), spend);
        }
    }

    private long elapsed() {
        return elapsedBefore + (clock.getAsLong() - runStart);
    }

    private boolean budgetSpent() {
        CampaignConfig.Stop stop = config.stop();
        synchronized (lock) {
            return (stop.evaluations() > 0 && evaluated >= stop.evaluations())
                    || (stop.wallMinutes() > 0 && elapsed() >= stop.wallMinutes() * 60_000)
                    || (stop.cost() > 0 && spend.cost() >= stop.cost());
        }
    }

    private Optional<String> stopReason(CampaignState state) {
        CampaignConfig.Stop stop = config.stop();
        if (stop.evaluations() > 0 && evaluated >= stop.evaluations()) {
            return Optional.of("evaluations: " + evaluated + " of " + stop.evaluations());
        }
        if (stop.wallMinutes() > 0 && elapsed() >= stop.wallMinutes() * 60_000) {
            return Optional.of("wall time: " + stop.wallMinutes() + " min");
        }
        if (stop.cost() > 0 && spend.cost() >= stop.cost()) {
            return Optional.of(String.format(java.util.Locale.ROOT, "cost: %.4f of %.4f", spend.cost(), stop.cost()));
        }
        if (stop.generations() > 0 && state.generation() >= stop.generations()) {
            return Optional.of("generations: " + stop.generations());
        }
        if (stop.noImprovement() > 0 && state.stale() >= stop.noImprovement()) {
            return Optional.of("no improvement for " + stop.noImprovement() + " generations");
        }
        return Optional.empty();
    }
}
