package dev.kevo.evolve;

import dev.kevo.agent.Agent;
import dev.kevo.agent.AgentException;
import dev.kevo.agent.Candidate;
import dev.kevo.agent.Proposal;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RepairRequest;
import dev.kevo.agent.RequestSlot;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Screen;
import dev.kevo.eval.SplitMix;
import dev.kevo.task.ContractException;
import dev.kevo.data.Shape;
import dev.kevo.worker.WorkerPool;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The children of one generation: each child's parents drawn by tournament on its island, its agent, its proposal,
 * and, while it fails to compile or gives wrong results and its agent repairs, its repairs, each a mutant of its own
 * whose parent is the failed one.
 *
 * <p>Children run concurrently and still replay the same: a child's randomness derives from the campaign's seed
 * and its position only, it sees only the generation's starting state (given here, never changed), and before its
 * proposal is judged it waits until every earlier child has claimed its own source, so that of two children with
 * the same source the earlier is judged.
 */
final class Breeding {
    /** Whatever an agent says, a child's repairs end here. */
    static final int MAX_REPAIR_ROUNDS = 8;

    private final CampaignConfig config;
    private final AgentPool agents;
    private final TaskContext context;
    private final Recorder recorder;
    private final Budget budget;
    private final int gen;
    private final List<List<MutantRecord>> islands;
    private final List<Candidate> failures;
    private final List<Candidate> relatives;
    private final List<Child> children = new ArrayList<>();
    /** The suite shapes a child is timed on first (empty: the cascade is off), and each island's screen. */
    private final List<String> cascadeShapes;
    private final List<Screen> screens = new ArrayList<>();

    /**
     * @param islands each island's members at the generation's start
     * @param failures recent judged failures, and {@code relatives} the knobbed evidence, as of the start
     */
    Breeding(CampaignConfig config, AgentPool agents, TaskContext context, Recorder recorder, Budget budget, int gen,
             List<List<MutantRecord>> islands, List<Candidate> failures, List<Candidate> relatives) {
        this.config = config;
        this.agents = agents;
        this.context = context;
        this.recorder = recorder;
        this.budget = budget;
        this.gen = gen;
        this.islands = islands;
        this.failures = failures;
        this.relatives = relatives;
        this.cascadeShapes = config.cascade().on() && context != null
                ? cascadeShapes(context.shapes(), config.cascade().shapes()) : List.of();
        for (int i = 0; i < islands.size(); i++) {
            screens.add(screen(i));
        }
        // Across islands: early on every island holds the same seeds, and a question is no less the same for that.
        Set<String> asked = new HashSet<>();
        Map<String, Integer> variants = new HashMap<>();
        for (int i = 0; i < islands.size(); i++) {
            for (int c = 0; c < config.childrenPerGeneration(); c++) {
                children.add(plan(i, c, asked, variants));
            }
        }
    }

    /**
     * A child's parents, agent and inspirations, drawn here in child order so that they never depend on which
     * thread runs first. An agent that wants distinct requests gets, for each further request of the generation, a
     * parent not yet asked about (a tournament among the island's passing kernels not yet used, while any are left)
     * and other islands' kernels further down their ranking as inspirations.
     *
     * @param asked the kernels (source hash, or id) already given as parents to such an agent this generation
     * @param variants per agent, how many requests it has had this generation so far
     */
    private Child plan(int island, int index, Set<String> asked, Map<String, Integer> variants) {
        List<MutantRecord> members = islands.get(island);
        SplittableRandom random = new SplittableRandom(SplitMix.derive(config.randomSeed(), gen * 1000 + island,
                index));
        int size = config.selection().tournamentSize();
        MutantRecord parent = Selection.tournament(members, size, random);
        Optional<MutantRecord> mate = Optional.empty();
        if (members.size() > 1 && random.nextDouble() < config.selection().crossoverRate()) {
            MutantRecord other = Selection.tournament(members, size, random);
            mate = other.id().equals(parent.id()) ? Optional.empty() : Optional.of(other);
        }
        Agent agent = agents.pick(random);
        int variant = 0;
        if (agent.wantsDistinctRequests()) {
            variant = variants.merge(agent.name(), 1, Integer::sum) - 1;
            if (asked.contains(kernel(parent))) {
                List<MutantRecord> fresh = members.stream().filter(m -> m.passed() && !asked.contains(kernel(m)))
                        .toList();
                if (!fresh.isEmpty()) {
                    parent = Selection.tournament(fresh, size, random);
                }
            }
            asked.add(kernel(parent));
            String parentId = parent.id();
            mate = mate.filter(m -> !m.id().equals(parentId));
        }
        List<MutantRecord> inspirations = new ArrayList<>();
        for (int other = 0; other < islands.size(); other++) {
            if (other != island) {
                List<MutantRecord> ranked = islands.get(other).stream().sorted(Selection.BEST_FIRST).toList();
                List<MutantRecord> passing = ranked.stream().filter(MutantRecord::passed).toList();
                if (!passing.isEmpty()) {
                    inspirations.add(passing.get(variant % passing.size()));
                } else if (!ranked.isEmpty()) {
                    inspirations.add(ranked.getFirst());
                }
            }
        }
        return new Child(island, index, children.size(), new Plan(parent, mate, agent, random,
                new RequestSlot(gen, variant), inspirations, screens.get(island)));
    }

    private static String kernel(MutantRecord m) {
        return m.sourceHash() != null ? m.sourceHash() : m.id();
    }

    /** What a child was given to work from, fixed before any child runs. */
    private record Plan(MutantRecord parent, Optional<MutantRecord> mate, Agent agent, SplittableRandom random,
                        RequestSlot slot, List<MutantRecord> inspirations, Screen screen) {
    }

    /**
     * {@code count} of {@code suite}'s shapes spread over its row lengths, which a child is timed on first: with the
     * shapes ordered by columns (then rows), the middle one of each of {@code count} equal runs. Rows of different
     * lengths take different designs, so a candidate's change shows on one of them whichever design it touched.
     */
    static List<String> cascadeShapes(List<Shape> suite, int count) {
        if (count <= 0 || suite.isEmpty()) {
            return List.of();
        }
        List<Shape> ordered = new ArrayList<>(suite);
        ordered.sort(Comparator.comparingInt(Shape::cols).thenComparingInt(Shape::rows));
        int n = Math.min(count, ordered.size());
        List<String> picked = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            picked.add(ordered.get((int) ((i + 0.5) * ordered.size() / n)).toString());
        }
        return picked;
    }

    /**
     * The cascade's first step for a child of {@code island}: its shapes, and a bar from the island's best at the
     * generation's start (fixed before any child runs, so a replay draws the same); null with the cascade off or no
     * passing member to set a bar.
     */
    private Screen screen(int island) {
        if (cascadeShapes.isEmpty()) {
            return null;
        }
        return islands.get(island).stream().filter(MutantRecord::passed).min(Selection.BEST_FIRST)
                .map(best -> Screen.against(best.result(), best.id(), cascadeShapes, config.cascade().margin()))
                .orElse(null);
    }

    /** The generation's children, island by island. */
    List<Child> children() {
        return children;
    }

    /**
     * What each island's children made, from {@code made} (per child of {@link #children()}, in order; null for a
     * child not judged yet).
     */
    List<List<MutantRecord>> offspring(List<List<MutantRecord>> made) {
        List<List<MutantRecord>> byIsland = new ArrayList<>();
        for (int i = 0; i < islands.size(); i++) {
            byIsland.add(new ArrayList<>());
        }
        for (int s = 0; s < children.size(); s++) {
            if (made.get(s) != null) {
                byIsland.get(children.get(s).island).addAll(made.get(s));
            }
        }
        return byIsland;
    }

    /** A child cancelled before it ran never says it has proposed, and later children wait for that: say it. */
    void releaseAll() {
        children.forEach(c -> c.proposed.complete(null));
    }

    /**
     * Failed to compile or gave wrong results, as opposed to an agent that answered nothing usable or a kernel that
     * passed and was screened out as slow.
     */
    private static boolean repairable(MutantRecord m) {
        return m.result().verdict().rejected() && m.judged();
    }

    /**
     * One child of the generation and its repairs. {@code proposed} completes once the child's source is claimed
     * in the cache, so that a later child with the same source defers to it whatever the timing.
     */
    final class Child {
        final int island;
        private final int index;
        private final int position;
        private final Plan plan;
        private final CompletableFuture<Void> proposed = new CompletableFuture<>();

        private Child(int island, int index, int position, Plan plan) {
            this.island = island;
            this.index = index;
            this.position = position;
            this.plan = plan;
        }

        /** The child's records, repairs included; empty when the budget ran out before it was judged. */
        List<MutantRecord> run() {
            try {
                return breed();
            } finally {
                proposed.complete(null);
            }
        }

        /**
         * This child's proposal drawn before its generation starts, as a candidate to compile ahead: only from an
         * agent that proposes offline, for a child not judged yet whose source nobody has claimed. Nothing is
         * recorded or counted, and this breeding's own randomness is spent (draw from a breeding made for it).
         */
        Optional<WorkerPool.Ahead> drawAhead() {
            if (!plan.agent().proposesOffline() || recorder.get(id()) != null) {
                return Optional.empty();
            }
            try {
                String source = plan.agent().propose(request()).source();
                return recorder.claimed(source) ? Optional.empty()
                        : Optional.of(new WorkerPool.Ahead(recorder.file(id(), source), inputSeed()));
            } catch (AgentException | ContractException e) {
                return Optional.empty();  // the child records this failure itself when its generation comes
            }
        }

        private String id() {
            return String.format("g%04d-i%d-c%d", gen, island, index);
        }

        private long inputSeed() {
            return SplitMix.derive(config.randomSeed(), gen, island * 1000 + index);
        }

        private ProposalRequest request() {
            List<Candidate> inspirations = plan.inspirations().stream().map(recorder::candidate).toList();
            return ProposalRequest.builder(recorder.candidate(plan.parent()), plan.random()).context(context)
                    .mate(plan.mate().map(recorder::candidate)).inspirations(inspirations).recentFailures(failures)
                    .relatives(relatives).slot(plan.slot())
                    .parentProfile(recorder.profile(plan.parent(), plan.agent().profileShapes())).build();
        }

        private List<MutantRecord> breed() {
            String id = id();
            MutantRecord parent = plan.parent();
            Optional<MutantRecord> mate = plan.mate();
            Agent agent = plan.agent();
            List<String> parents = mate.map(m -> List.of(parent.id(), m.id())).orElse(List.of(parent.id()));
            long inputSeed = inputSeed();

            MutantRecord record = recorder.recovered(id);
            if (record == null) {
                if (budget.spent()) {
                    return List.of();
                }
                ProposalRequest request = request();
                record = attempt(id, parents, agent, inputSeed, () -> agent.propose(request));
                if (record == null) {
                    return List.of();
                }
            }
            proposed.complete(null);
            List<MutantRecord> made = new ArrayList<>(List.of(record));
            for (int round = 1; round <= MAX_REPAIR_ROUNDS && repairable(record); round++) {
                String rid = id + "-r" + round;
                MutantRecord repaired = recorder.recovered(rid);
                if (repaired == null) {
                    if (budget.spent()) {
                        break;
                    }
                    RepairRequest request = new RepairRequest(context, recorder.candidate(parent),
                            recorder.candidate(record), round, new SplittableRandom(SplitMix.derive(config.randomSeed(),
                            gen * 1000 + island, index * 100 + round)));
                    Optional<Proposal> retry;
                    long start = System.nanoTime();
                    try {
                        retry = agent.repair(request);
                    } catch (AgentException e) {
                        made.add(recorder.agentFailure(rid, List.of(record.id()), gen, island, agent.name(), e,
                                inputSeed, start));
                        break;
                    }
                    if (retry.isEmpty()) {
                        break;
                    }
                    double agentMs = (System.nanoTime() - start) / 1e6;
                    repaired = recorder.judge(new Recorder.Made(rid, List.of(record.id()), gen, island, agent.name(),
                            retry.get()), inputSeed, plan.screen(), agentMs, () -> {
                            }).orElse(null);
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
                                     Supplier<Proposal> propose) {
            long start = System.nanoTime();
            Proposal proposal;
            try {
                proposal = propose.get();
            } catch (AgentException e) {
                return recorder.agentFailure(id, parents, gen, island, agent.name(), e, inputSeed, start);
            }
            double agentMs = (System.nanoTime() - start) / 1e6;
            for (Child earlier : children.subList(0, position)) {
                earlier.proposed.join();
            }
            return recorder.judge(new Recorder.Made(id, parents, gen, island, agent.name(), proposal), inputSeed,
                    plan.screen(), agentMs, () -> proposed.complete(null)).orElse(null);
        }
    }
}
