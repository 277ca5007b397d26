package dev.kevo.evolve;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kevo.agent.Agent;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.Candidate;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.eval.CandidateResult;
import dev.kevo.eval.Seeds;
import dev.kevo.eval.Verdict;
import dev.kevo.store.CampaignState;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.MutantRecord;
import dev.kevo.store.SourceHash;
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
import java.util.function.LongSupplier;

/**
 * The evolution loop: islands of kernels, each generation a few children per island proposed by the agents
 * and judged by the evaluator, elitist survival, and every few generations each island's best joining the
 * next island. All randomness derives from the campaign's seed and the position of the child, and every
 * mutant is saved before the next is made, so a campaign killed at any moment resumes where it was: the
 * generation in progress is replayed, its already-judged children read back from disk, not re-evaluated.
 */
public final class Campaign {
    private static final int RECENT_FAILURES = 5;

    private final CampaignConfig config;
    private final CampaignStore store;
    private final Evaluations evaluations;
    private final AgentPool agents;
    private final List<KernelFile> seeds;
    private final CampaignListener listener;
    private final LongSupplier clock;

    private final Map<String, MutantRecord> byId = new HashMap<>();
    private final Map<String, MutantRecord> byHash = new HashMap<>();
    private final Deque<MutantRecord> recentFailures = new ArrayDeque<>();
    private MutantRecord champion;
    private int evaluated;
    private long runStart;
    private long elapsedBefore;

    public Campaign(CampaignConfig config, CampaignStore store, Evaluations evaluations, AgentPool agents,
                    List<KernelFile> seeds, CampaignListener listener, LongSupplier clockMillis) {
        this.config = config;
        this.store = store;
        this.evaluations = evaluations;
        this.agents = agents;
        this.seeds = List.copyOf(seeds);
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
        CampaignState state = saved.orElseGet(this::evaluateSeeds);
        elapsedBefore = state.elapsedMillis();
        evaluated = state.evaluations();
        while (true) {
            Optional<String> stop = stopReason(state);
            if (stop.isPresent()) {
                store.event("finished", Map.of("reason", stop.get(), "generation", state.generation(),
                        "evaluations", evaluated, "champion", champion == null ? "" : champion.id()));
                listener.finished(state, champion, stop.get());
                return state;
            }
            Optional<CampaignState> next = generation(state);
            if (next.isEmpty()) {
                continue;  // stopped mid-generation: the loop reports why
            }
            state = next.get();
        }
    }

    private CampaignState evaluateSeeds() {
        List<MutantRecord> seeded = new ArrayList<>();
        for (int s = 0; s < seeds.size(); s++) {
            KernelFile seed = seeds.get(s);
            String id = "seed-" + seed.name().replaceFirst("\\.cu$", "");
            MutantRecord record = byId.get(id);
            if (record != null && record.cachedFrom() == null) {
                evaluated++;
            }
            if (record == null) {
                record = judge(id, List.of(), 0, -1, "seed", "seed", "hand-written seed " + seed.name(), null,
                        seed.source(), Seeds.derive(config.randomSeed(), 0, s), null);
            }
            seeded.add(record);
        }
        List<String> members = seeded.stream().sorted(Selection.BEST_FIRST).limit(config.population())
                .map(MutantRecord::id).toList();
        List<List<String>> islands = new ArrayList<>();
        for (int i = 0; i < config.islands(); i++) {
            islands.add(members);
        }
        CampaignState state = new CampaignState(0, evaluated, islands, champion == null ? null : champion.id(), 0,
                elapsed());
        store.saveState(state);
        return state;
    }

    /** One generation over all islands; empty when a stop condition interrupted it. */
    private Optional<CampaignState> generation(CampaignState state) {
        int gen = state.generation() + 1;
        List<List<MutantRecord>> islands = state.islands().stream().map(ids -> ids.stream().map(byId::get).toList())
                .toList();
        String championBefore = champion == null ? null : champion.id();
        List<List<MutantRecord>> next = new ArrayList<>();
        for (int i = 0; i < islands.size(); i++) {
            List<MutantRecord> members = islands.get(i);
            List<MutantRecord> children = new ArrayList<>();
            for (int c = 0; c < config.childrenPerGeneration(); c++) {
                if (budgetSpent()) {
                    return Optional.empty();
                }
                children.add(child(gen, i, c, members, islands));
            }
            next.add(Selection.survivors(members, children, config.population(), config.selection().elitism()));
        }
        if (gen % config.migrationInterval() == 0 && next.size() > 1) {
            next = migrate(next);
            store.event("migrated", Map.of("generation", gen));
        }
        boolean improved = champion != null && !champion.id().equals(championBefore);
        CampaignState after = new CampaignState(gen, evaluated,
                next.stream().map(l -> l.stream().map(MutantRecord::id).toList()).toList(),
                champion == null ? null : champion.id(), improved ? 0 : state.stale() + 1, elapsed());
        store.saveState(after);
        store.event("generation", Map.of("generation", gen, "evaluations", evaluated,
                "champion", after.bestId() == null ? "" : after.bestId(),
                "score", champion == null ? 0 : champion.fitness()));
        listener.generationEnded(after, champion);
        return Optional.of(after);
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

    private MutantRecord child(int gen, int island, int index, List<MutantRecord> members,
                               List<List<MutantRecord>> islands) {
        String id = String.format("g%04d-i%d-c%d", gen, island, index);
        MutantRecord recovered = byId.get(id);
        if (recovered != null) {
            if (recovered.cachedFrom() == null && recovered.result().verdict() != Verdict.AGENT_FAILURE) {
                evaluated++;
            }
            return recovered;
        }
        SplittableRandom random = new SplittableRandom(Seeds.derive(config.randomSeed(), gen * 1000 + island, index));
        MutantRecord parent = Selection.tournament(members, config.selection().tournamentSize(), random);
        Optional<MutantRecord> mate = Optional.empty();
        if (members.size() > 1 && random.nextDouble() < config.selection().crossoverRate()) {
            MutantRecord other = Selection.tournament(members, config.selection().tournamentSize(), random);
            mate = other.id().equals(parent.id()) ? Optional.empty() : Optional.of(other);
        }
        List<Candidate> inspirations = new ArrayList<>();
        for (int other = 0; other < islands.size(); other++) {
            if (other != island) {
                islands.get(other).stream().min(Selection.BEST_FIRST).map(this::candidate).ifPresent(inspirations::add);
            }
        }
        Agent agent = agents.pick(random);
        List<String> parents = mate.map(m -> List.of(parent.id(), m.id())).orElse(List.of(parent.id()));
        long inputSeed = Seeds.derive(config.randomSeed(), gen, island * 1000 + index);
        long start = System.nanoTime();
        Proposal proposal;
        try {
            proposal = agent.propose(new ProposalRequest(null, candidate(parent), mate.map(this::candidate), inspirations,
                    recentFailures.stream().map(this::candidate).toList(), random));
        } catch (AgentException e) {
            listener.agentFailed(agent.name(), e.getMessage());
            MutantRecord failed = new MutantRecord(id, parents, gen, island, agent.name(), "failed", e.getMessage(),
                    null, null, null, CandidateResult.rejected(id, null, null, Verdict.AGENT_FAILURE, e.getMessage(),
                    inputSeed), (System.nanoTime() - start) / 1e6, Instant.now().toString(), null);
            store.saveMutant(failed, "");
            remember(failed);
            return failed;
        }
        double agentMs = (System.nanoTime() - start) / 1e6;
        return judge(id, parents, gen, island, agent.name(), proposal.operator(), proposal.summary(),
                proposal.genome().orElse(null), proposal.source(), inputSeed, agentMs);
    }

    private MutantRecord judge(String id, List<String> parents, int gen, int island, String agent, String operator,
                               String summary, JsonNode genome, String source,
                               long inputSeed, Double agentMs) {
        String hash = SourceHash.of(source);
        MutantRecord earlier = byHash.get(hash);
        CandidateResult result;
        String cachedFrom = null;
        if (earlier != null) {
            result = earlier.result();
            cachedFrom = earlier.id();
        } else {
            result = evaluate(id, source, inputSeed);
            evaluated++;
        }
        MutantRecord record = new MutantRecord(id, parents, gen, island, agent, operator, summary, genome, hash,
                cachedFrom, result, agentMs, Instant.now().toString(), null);
        store.saveMutant(record, source);
        boolean newChampion = remember(record);
        store.event("mutant", Map.of("id", id, "generation", gen, "island", island, "agent", agent,
                "verdict", result.verdict().id(), "score", record.passed() ? record.fitness() : 0,
                "cached", cachedFrom != null));
        if (newChampion) {
            store.saveChampion(record, source);
            store.event("champion", Map.of("id", id, "score", record.fitness()));
        }
        listener.evaluated(record, new CampaignState(gen, evaluated, List.of(), champion == null ? null : champion.id(),
                0, elapsed()), champion);
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
        byId.put(m.id(), m);
        if (m.sourceHash() != null && m.cachedFrom() == null) {
            byHash.putIfAbsent(m.sourceHash(), m);
        }
        if (m.result() != null && !m.passed() && m.result().verdict() != Verdict.AGENT_FAILURE
                && m.sourceHash() != null) {
            recentFailures.addLast(m);
            if (recentFailures.size() > RECENT_FAILURES) {
                recentFailures.removeFirst();
            }
        }
        if (m.passed() && (champion == null || m.fitness() > champion.fitness())) {
            champion = m;
            return true;
        }
        return false;
    }

    private Candidate candidate(MutantRecord m) {
        return new Candidate(m.id(), store.source(m.id()), Optional.ofNullable(m.genome()), m.result());
    }

    private long elapsed() {
        return elapsedBefore + (clock.getAsLong() - runStart);
    }

    private boolean budgetSpent() {
        CampaignConfig.Stop stop = config.stop();
        return (stop.evaluations() > 0 && evaluated >= stop.evaluations())
                || (stop.wallMinutes() > 0 && elapsed() >= stop.wallMinutes() * 60_000);
    }

    private Optional<String> stopReason(CampaignState state) {
        CampaignConfig.Stop stop = config.stop();
        if (stop.evaluations() > 0 && evaluated >= stop.evaluations()) {
            return Optional.of("evaluations: " + evaluated + " of " + stop.evaluations());
        }
        if (stop.wallMinutes() > 0 && elapsed() >= stop.wallMinutes() * 60_000) {
            return Optional.of("wall time: " + stop.wallMinutes() + " min");
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
