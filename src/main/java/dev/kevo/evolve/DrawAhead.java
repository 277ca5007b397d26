package dev.kevo.evolve;

import dev.kevo.agent.TaskContext;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.MutantRecord;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.SourceHash;
import dev.kevo.worker.WorkerPool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The next generation's first children, drawn while the last children of this one are judged so that they are
 * compiled by the time it starts: a generation's children are bred only once the one before is judged whole, and
 * without a draw the GPU waits at every generation's start while NVRTC compiles the first of them.
 *
 * <p>A draw breeds the next generation from this one as judged so far, the children still being judged left out,
 * and asks only agents that propose offline ({@link dev.kevo.agent.Agent#proposesOffline}). A child of the next
 * generation whose proposal comes out the same when its generation starts (what it was shown was not changed by
 * those last children) finds its compile done; any other is compiled as always. Nothing drawn is recorded, counted
 * or shown to an agent, so a campaign makes the same children whether or not, and whatever, was drawn.
 */
final class DrawAhead {
    private final CampaignConfig config;
    private final AgentPool agents;
    private final TaskContext context;
    private final Recorder recorder;
    private final Budget budget;
    private final Judge judge;
    private final CampaignStore store;

    DrawAhead(CampaignConfig config, AgentPool agents, TaskContext context, Recorder recorder, Budget budget,
              Judge judge, CampaignStore store) {
        this.config = config;
        this.agents = agents;
        this.context = context;
        this.recorder = recorder;
        this.budget = budget;
        this.judge = judge;
        this.store = store;
    }

    /**
     * Follows generation {@code gen}'s children (those of {@code breeding}, from {@code islands}) as they are judged,
     * and draws the next generation on {@code executor} once only {@link #whenLeft()} are left.
     */
    Generation follow(int gen, List<List<MutantRecord>> islands, Breeding breeding, ExecutorService executor) {
        return new Generation(gen, islands, breeding, executor);
    }

    /**
     * How many of a generation's children are still unjudged when the draw starts: one on each GPU and one more
     * each, so that the compiles have about two judgements' time to finish, while all but those few are seen.
     */
    int whenLeft() {
        return 2 * judge.parallelism();
    }

    /** One generation's children as they are judged, and its draw once it started. */
    final class Generation {
        private final int gen;
        private final List<List<MutantRecord>> islands;
        private final Breeding breeding;
        private final ExecutorService executor;
        private final AtomicReferenceArray<List<MutantRecord>> judged;
        private final AtomicInteger unjudged;
        private final AtomicReference<Future<?>> draw = new AtomicReference<>();

        private Generation(int gen, List<List<MutantRecord>> islands, Breeding breeding, ExecutorService executor) {
            this.gen = gen;
            this.islands = islands;
            this.breeding = breeding;
            this.executor = executor;
            this.judged = new AtomicReferenceArray<>(breeding.children().size());
            this.unjudged = new AtomicInteger(breeding.children().size());
        }

        /** Child {@code slot} made {@code made}; returns it. Starts the draw when this leaves {@link #whenLeft()}. */
        List<MutantRecord> judged(int slot, List<MutantRecord> made) {
            judged.set(slot, made);
            if (unjudged.decrementAndGet() == whenLeft()) {
                List<List<MutantRecord>> soFar = new ArrayList<>();
                for (int i = 0; i < judged.length(); i++) {
                    soFar.add(judged.get(i));
                }
                draw.set(executor.submit(() -> draw(gen, islands, breeding, soFar)));
            }
            return made;
        }

        /** Waits for the draw if one started: its own failure is a bug to see, not to lose on a thread of its own. */
        void awaitDraw() {
            Future<?> started = draw.get();
            if (started != null) {
                Campaign.await(started);
            }
        }
    }

    /**
     * Draws generation {@code gen + 1} from generation {@code gen}'s starting {@code islands} and the children
     * {@code made} so far (per child of {@code breeding}; null for one not judged yet), and has its first
     * proposals compiled ahead: as many as the judge has compilers ({@link Judge#compilers}).
     */
    private void draw(int gen, List<List<MutantRecord>> islands, Breeding breeding, List<List<MutantRecord>> made) {
        if (budget.lastGeneration(gen) || budget.spent() || !agents.anyOffline()) {
            return;
        }
        List<List<MutantRecord>> next = Selection.nextGeneration(islands, breeding.offspring(made), config, gen);
        Breeding ahead = new Breeding(config, agents, context, recorder, budget, gen + 1, next,
                recorder.recentFailures(), recorder.knobbedRelatives(gen + 1, Campaign.RELATIVES));
        int most = judge.compilers();
        List<WorkerPool.Ahead> drawn = new ArrayList<>();
        for (Breeding.Child child : ahead.children()) {
            if (drawn.size() >= most) {
                break;
            }
            child.drawAhead().ifPresent(drawn::add);
        }
        judge.compileAhead(drawn);
        Map<String, String> sources = new LinkedHashMap<>();
        drawn.forEach(a -> sources.put(a.file().name(), SourceHash.of(a.file().source())));
        store.event("drawn-ahead", Map.of("generation", gen + 1, "sources", sources));
    }
}
