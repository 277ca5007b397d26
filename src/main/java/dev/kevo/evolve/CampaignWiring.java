package dev.kevo.evolve;

import dev.kevo.KevoException;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.SanitizeWhen;
import dev.kevo.eval.BaselineResolver;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.Suite;
import dev.kevo.task.op.Task;
import dev.kevo.worker.ComputeSanitizer;
import dev.kevo.worker.NsightCompute;
import dev.kevo.worker.Tools;
import dev.kevo.worker.WorkerPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * How a campaign is wired to the host it runs on: which optional CUDA tools its workers run files under
 * (compute-sanitizer for the champion, or for every candidate; Nsight Compute for the models' evidence), what it says
 * and records where one is missing, and what its agents are told of the task.
 *
 * <p>The tools are optional: a campaign never fails for lack of one, unless its config asks for every candidate to be
 * sanitized. Nothing about them is said before the workers are ready, so that a host without a GPU or driver hears
 * about that first. A champion that will not be sanitized is said once, and recorded in the campaign's events: such a
 * champion cannot be exported until {@code kevo eval --sanitize} records a clean run of it.
 */
public final class CampaignWiring {
    private final CampaignStart start;
    private final BaselineResolver.Resolved baseline;
    private final Tools tools;
    /** Why the champion will not be sanitized, to say and record once the workers are ready; null when it will be. */
    private final String unsanitized;
    /** What the lookup of a tool the config cannot do without found wrong; thrown once the workers are ready. */
    private final KevoException missing;
    private final List<String> notes;

    private CampaignWiring(CampaignStart start, BaselineResolver.Resolved baseline, Tools tools, String unsanitized,
                           KevoException missing, List<String> notes) {
        this.start = start;
        this.baseline = baseline;
        this.tools = tools;
        this.unsanitized = unsanitized;
        this.missing = missing;
        this.notes = List.copyOf(notes);
    }

    /**
     * Looks for the tools the campaign's settings and agents use, in {@code env}, and reports nothing yet.
     *
     * @param onSlurm whether the workers are Slurm steps, which run nothing under a tool (its report would be
     *     written on the node)
     * @throws KevoException an input error when the config asks what cannot be done: {@code sanitize: every} on
     *     Slurm steps
     */
    public static CampaignWiring of(CampaignStart start, BaselineResolver.Resolved baseline, boolean onSlurm,
                                    Map<String, String> env) {
        return of(start, baseline, onSlurm, () -> ComputeSanitizer.locate(env), () -> NsightCompute.find(env));
    }

    /**
     * As {@link #of(CampaignStart, BaselineResolver.Resolved, boolean, Map)}, finding the tools with these (the
     * sanitizer's throws a {@link KevoException} saying why there is none).
     */
    static CampaignWiring of(CampaignStart start, BaselineResolver.Resolved baseline, boolean onSlurm,
                             Supplier<ComputeSanitizer> locateSanitizer, Supplier<Optional<NsightCompute>> findProfiler) {
        EvalSettings settings = start.frozen().settings();
        List<String> notes = new ArrayList<>();
        Optional<ComputeSanitizer> sanitizer = Optional.empty();
        String unsanitized = null;
        KevoException missing = null;
        if (onSlurm) {
            Tools.refuseSanitizeEveryOnSlurm(settings);
            if (settings.sanitize() == SanitizeWhen.CHAMPION) {
                unsanitized = "with --workers slurm the champion is not sanitized (compute-sanitizer runs on workers of "
                        + "this host)";
            }
        } else if (settings.sanitize() != SanitizeWhen.OFF) {
            try {
                sanitizer = Optional.of(locateSanitizer.get());
            } catch (KevoException e) {
                // A variable naming no binary is bad input, and so is a campaign whose config asks to sanitize every
                // candidate without the tool to do it; a champion alone is sanitized later, by kevo eval.
                if (e.kind() == KevoException.Kind.INPUT || settings.sanitize() == SanitizeWhen.EVERY) {
                    missing = settings.sanitize() == SanitizeWhen.EVERY && e.kind() != KevoException.Kind.INPUT
                            ? new KevoException(e.kind(), e.getMessage() + "; or set 'sanitize: champion' (or off) "
                                    + "in the campaign's eval config")
                            : e;
                } else {
                    unsanitized = e.getMessage() + "; the campaign runs, but its champion will not be sanitized";
                }
            }
        }
        Optional<NsightCompute> profiler = Optional.empty();
        if (!onSlurm && start.frozen().config().agents().stream()
                .anyMatch(a -> a.model() != null && a.model().profileShapes() > 0)) {
            profiler = findProfiler.get();
            if (profiler.isEmpty()) {
                notes.add("no ncu found (" + NsightCompute.VARIABLE + ", the PATH, /usr/local/cuda/bin): models get no "
                        + "profiler evidence");
            }
        }
        if (unsanitized != null) {
            notes.add(unsanitized + ", and kevo export refuses it until 'kevo eval --sanitize' on its source (kevo show "
                    + "names it) records a clean run");
        }
        return new CampaignWiring(start, baseline, Tools.sanitizing(sanitizer).withProfiler(profiler), unsanitized,
                missing, notes);
    }

    /** The tools local workers run files under. */
    public Tools tools() {
        return tools;
    }

    /**
     * Call once the workers are ready, so that a host without a GPU or driver has heard that first: fails for a tool the
     * config cannot do without, says each note once, and opens the campaign's store (a new campaign's folder is made
     * now), recording there why its champion will not be sanitized.
     *
     * @throws KevoException what the tools' lookup found wrong (see {@link #of})
     */
    public CampaignStore ready(Consumer<String> say) {
        if (missing != null) {
            throw missing;
        }
        notes.forEach(say);
        CampaignStore store = start.store();
        if (unsanitized != null) {
            store.event("unsanitized", Map.of("why", unsanitized,
                    "export", "kevo eval --sanitize on the champion's source records what kevo export asks for"));
        }
        return store;
    }

    /** The campaign, judged by {@code workers} (ready, see {@link #ready}) and recorded in {@code store}. */
    public Campaign campaign(CampaignStore store, WorkerPool workers, CampaignListener listener,
                             LongSupplier clockMillis) {
        return new Campaign(store.frozen().config(), store, Judge.of(workers), start.agents(), start.seeds(),
                taskContext(start.frozen(), start.suite(), workers), listener, clockMillis);
    }

    /**
     * What the agents may tell a model: the first worker's GPU (where champions are confirmed), suite, the task
     * (operator and dtypes).
     */
    private TaskContext taskContext(FrozenCampaign frozen, Suite suite, WorkerPool workers) {
        return new TaskContext(workers.ready().getFirst().device(), suite.name(), suite.shapes(),
                Task.of(frozen.settings()), baseline.choice().label(), frozen.settings());
    }
}
