package dev.kevo.evolve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.Candidate;
import dev.kevo.agent.ModelCall;
import dev.kevo.agent.Proposal;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Profile;
import dev.kevo.data.Screen;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.RecordSeal;
import dev.kevo.store.SourceHash;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Judges each distinct source once and records every mutant: the first child to claim a source (by the hash of
 * its normalised text) has it evaluated, later ones with the same source wait for that and reuse its result
 * ({@code cachedFrom}). Every mutant is saved as it is judged, indexed, and weighed against the champion.
 */
final class Recorder {
    private static final int RECENT_FAILURES = 5;

    /** What an agent made, before judging: where it sits in the campaign and the proposal itself. */
    record Made(String id, List<String> parents, int generation, int island, String agent, Proposal proposal) {
    }

    private final CampaignStore store;
    private final Judge evaluations;
    private final Budget budget;
    private final CampaignListener listener;

    /**
     * Guards everything below, which the children of a generation read and change on several threads. One lock,
     * because three things must each happen in one step: looking a source up and claiming it (so that of two
     * children with the same source exactly one is evaluated, and the claim counts against the budget only when
     * it is new); a new champion decided and its files written (so that champion.cu and champion.json always
     * hold the best so far, never an earlier one written late); and the progress display told, one mutant at a
     * time, with the champion as it was then. Lock order: this, then the budget's; never the other way.
     */
    private final Object lock = new Object();
    private final Map<String, MutantRecord> byId = new HashMap<>();
    private final Map<String, CompletableFuture<MutantRecord>> byHash = new HashMap<>();
    private final Deque<MutantRecord> recentFailures = new ArrayDeque<>();
    /** Each parent's profile, once asked for (by id). */
    private final Map<String, CompletableFuture<Optional<Profile>>> profiles = new ConcurrentHashMap<>();
    private MutantRecord champion;

    Recorder(CampaignStore store, Judge evaluations, Budget budget, CampaignListener listener) {
        this.store = store;
        this.evaluations = evaluations;
        this.budget = budget;
        this.listener = listener;
    }

    /** Indexes a mutant read back from the campaign folder. */
    void load(MutantRecord m) {
        synchronized (lock) {
            remember(m);
        }
    }

    int size() {
        synchronized (lock) {
            return byId.size();
        }
    }

    MutantRecord get(String id) {
        synchronized (lock) {
            return byId.get(id);
        }
    }

    MutantRecord champion() {
        synchronized (lock) {
            return champion;
        }
    }

    /** A child judged before a kill, read back on resume (and counted again, as state.json predates it). */
    MutantRecord recovered(String id) {
        MutantRecord m = get(id);
        if (m != null && m.judged()) {
            budget.countRecovered();
        }
        return m;
    }

    /**
     * Judges a proposal once per distinct source: the first to claim a source evaluates it, later ones wait for
     * that and record where their result came from. {@code claimed} runs once the source is claimed or found.
     * Empty when the evaluation budget was spent before this one could start.
     */
    Optional<MutantRecord> judge(Made made, long inputSeed, Double agentMs, Runnable claimed) {
        return judge(made, inputSeed, null, agentMs, claimed);
    }

    /** As above, under a cascade's first step ({@code screen}; null: timed on every shape). */
    Optional<MutantRecord> judge(Made made, long inputSeed, Screen screen, Double agentMs, Runnable claimed) {
        String source = made.proposal().source();
        String hash = SourceHash.of(source);
        CompletableFuture<MutantRecord> earlier;
        CompletableFuture<MutantRecord> mine = new CompletableFuture<>();
        boolean judged;
        synchronized (lock) {
            earlier = byHash.get(hash);
            judged = earlier != null || budget.claim();
            if (earlier == null && judged) {
                byHash.put(hash, mine);
            }
        }
        claimed.run();
        if (!judged) {
            unjudged(made);
            return Optional.empty();
        }
        try {
            return Optional.of(record(made, source, hash, earlier, mine, inputSeed, screen, agentMs));
        } catch (RuntimeException | Error e) {
            // Whoever waits on this source must not wait forever on a child that died (killed, interrupted).
            mine.completeExceptionally(e);
            throw e;
        }
    }

    /** An agent that answered nothing usable: recorded as a mutant of its own, never judged. */
    MutantRecord agentFailure(String id, List<String> parents, int generation, int island, String agent,
                              AgentException e, long inputSeed, long startNanos) {
        synchronized (lock) {
            listener.agentFailed(agent, e.getMessage());
        }
        e.call().ifPresent(call -> store.saveModelCall(id, call));
        MutantRecord failed = MutantRecord.builder(id).parents(parents).generation(generation).island(island)
                .agent(agent).operator("failed").summary(e.getMessage())
                .result(CandidateResult.rejected(id, null, null, Verdict.AGENT_FAILURE, e.getMessage(), inputSeed))
                .agentMs((System.nanoTime() - startNanos) / 1e6).createdAt(Instant.now().toString())
                .model(e.call().map(ModelCall::usage).orElse(null)).build();
        store.saveMutant(failed, "");
        synchronized (lock) {
            remember(failed);
        }
        return failed;
    }

    /**
     * A model's answer that came back after the budget was spent: not judged, but paid for, so its cost counts and
     * its prompt and answer are kept.
     */
    private void unjudged(Made made) {
        made.proposal().call().ifPresent(call -> {
            store.saveModelCall(made.id(), call);
            budget.pay(call.usage());
            store.event("unjudged", Map.of("id", made.id(), "agent", made.agent(), "cost", call.usage().cost()));
        });
    }

    private MutantRecord record(Made made, String source, String hash, CompletableFuture<MutantRecord> earlier,
                                CompletableFuture<MutantRecord> mine, long inputSeed, Screen screen,
                                Double agentMs) {
        CandidateResult result;
        String cachedFrom = null;
        if (earlier != null) {
            MutantRecord first = earlier.join();
            result = first.result();
            cachedFrom = first.id();
        } else {
            result = evaluate(made.id(), source, inputSeed, screen);
            if (result.sanitized() != null) {
                // sanitize: every ran it in its evaluation: the record names these bytes and is sealed here
                result = result.toBuilder().sanitized(RecordSeal.local().seal(result.sanitized().withSourceHash(hash)))
                        .build();
            }
        }
        made.proposal().call().ifPresent(call -> store.saveModelCall(made.id(), call));
        JsonNode genome = made.proposal().genome().orElse(null);
        MutantRecord record = MutantRecord.builder(made.id()).parents(made.parents()).generation(made.generation())
                .island(made.island()).agent(made.agent()).operator(made.proposal().operator())
                .summary(made.proposal().summary()).genome(genome).sourceHash(hash).cachedFrom(cachedFrom)
                .result(result).agentMs(agentMs).createdAt(Instant.now().toString())
                .model(made.proposal().call().map(ModelCall::usage).orElse(null)).build();
        store.saveMutant(record, source);
        mine.complete(record);
        synchronized (lock) {
            boolean newChampion = remember(record);
            store.event("mutant", Map.of("id", made.id(), "generation", made.generation(), "island", made.island(),
                    "agent", made.agent(), "verdict", result.verdict().id(),
                    "score", record.passed() ? record.fitness() : 0, "cached", cachedFrom != null));
            if (newChampion) {
                store.saveChampion(record, source);
                store.event("champion", Map.of("id", made.id(), "score", record.fitness()));
            }
            listener.evaluated(record, budget.state(made.generation(), List.of(), champion == null ? null
                    : champion.id(), 0), champion);
        }
        return record;
    }

    private CandidateResult evaluate(String id, String source, long inputSeed, Screen screen) {
        KernelFile file;
        try {
            file = file(id, source);
        } catch (ContractException e) {
            return CandidateResult.rejected(id + ".cu", null, null, Verdict.CONTRACT_ERROR, e.getMessage(), inputSeed);
        }
        return evaluations.evaluate(file, inputSeed, screen);
    }

    /**
     * Mutant {@code id}'s source as the file that is judged: named and placed as it is saved.
     *
     * @throws ContractException when its header is not a valid plan
     */
    KernelFile file(String id, String source) {
        return ContractParser.parse(id + ".cu", store.sourcePath(id), source);
    }

    /** Whether a source is judged, or being judged, already: a child with it reuses that result, compiling nothing. */
    boolean claimed(String source) {
        String hash = SourceHash.of(source);
        synchronized (lock) {
            return byHash.containsKey(hash);
        }
    }

    /** Indexes a record; true when it is the new champion. Called holding the lock. */
    private boolean remember(MutantRecord m) {
        byId.put(m.id(), m);
        budget.pay(m.model());
        if (m.sourceHash() != null && m.cachedFrom() == null) {
            byHash.putIfAbsent(m.sourceHash(), CompletableFuture.completedFuture(m));
        }
        if (m.result() != null && m.result().verdict().rejected() && m.result().verdict() != Verdict.AGENT_FAILURE
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

    /** The most recent judged failures (oldest first), as an agent is shown them. */
    List<Candidate> recentFailures() {
        List<MutantRecord> failures;
        synchronized (lock) {
            failures = List.copyOf(recentFailures);
        }
        return failures.stream().map(this::candidate).toList();
    }

    /**
     * The best judged kernels of earlier generations that declare knobs (their evidence of which values did best),
     * at most {@code limit}, from the generation's starting state so that a replay sees the same.
     */
    List<Candidate> knobbedRelatives(int generation, int limit) {
        return best(generation).stream().map(this::candidate)
                .filter(c -> c.source().contains("\"knobs\"")).limit(limit).toList();
    }

    /** The passing mutants judged (not cached) in generations before {@code generation}, best first. */
    List<MutantRecord> best(int generation) {
        synchronized (lock) {
            return byId.values().stream().filter(m -> m.passed() && m.cachedFrom() == null
                    && m.generation() < generation).sorted(Selection.BEST_FIRST).toList();
        }
    }

    /**
     * Names {@code id} the champion after all (champion confirmation) and writes its files; null: no contender passed
     * confirmation, so there is no champion and its files go.
     */
    void crown(String id) {
        synchronized (lock) {
            if (id == null) {
                champion = null;
                store.removeChampion();
                return;
            }
            MutantRecord winner = byId.get(id);
            if (winner != null && !winner.id().equals(champion.id())) {
                champion = winner;
                store.saveChampion(winner, store.source(winner.id()));
            }
        }
    }

    /**
     * Nsight Compute's profile of {@code parent} on its {@code shapes} shapes furthest from the memory floor: computed
     * once per parent (children asking at once wait for the one profile), kept beside its record so that a resumed
     * campaign does not profile it again; empty for a parent that did not pass or where the judge cannot profile.
     */
    Optional<Profile> profile(MutantRecord parent, int shapes) {
        if (!parent.passed() || shapes <= 0) {
            return Optional.empty();
        }
        CompletableFuture<Optional<Profile>> mine = new CompletableFuture<>();
        CompletableFuture<Optional<Profile>> earlier = profiles.putIfAbsent(parent.id(), mine);
        if (earlier != null) {
            return earlier.join();
        }
        try {
            Optional<Profile> found = store.profile(parent.id());
            if (found.isEmpty()) {
                String source = store.source(parent.id());
                KernelFile file = ContractParser.parse(parent.id() + ".cu", store.sourcePath(parent.id()), source);
                found = evaluations.profile(file, parent.result().inputSeed(),
                        Profile.furthestFromFloor(parent.result().shapes(), shapes).stream().map(Shape::parse)
                                .toList());
                found.ifPresent(p -> store.saveProfile(parent.id(), p));
            }
            mine.complete(found);
            return found;
        } catch (RuntimeException e) {
            mine.complete(Optional.empty());
            throw e;
        }
    }

    Candidate candidate(MutantRecord m) {
        return new Candidate(m.id(), store.source(m.id()), Optional.ofNullable(m.genome()), m.result());
    }
}
