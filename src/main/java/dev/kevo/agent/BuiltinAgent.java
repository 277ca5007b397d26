package dev.kevo.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kevo.data.Defaults;
import dev.kevo.data.Precision;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The built-in mutation engine: no model, no network. A child is either a {@link Genome} rendered by
 * {@link KernelRenderer}, correct by construction so that only its speed is in question, or a parent that
 * declares knobs with other values for them ({@link KnobTuner}).
 *
 * <ul>
 *   <li>parent without a genome that declares knobs (a knobbed seed, a model's file): its knobs tuned (a step, or
 *       a crossover with a mate sharing knob names); with fresh genomes on, half the time a fresh genome instead,
 *       where the genome renders the campaign's operator ({@link KernelRenderer#serves}: softmax's family, their
 *       gradients and cross_entropy; another operator's seeds are only tuned);</li>
 *   <li>parent with neither (a hand-written seed, another agent's file): a fresh genome, one of
 *       {@link DefaultGenomes#named()} or, now and then, a random one, unless fresh genomes are off;</li>
 *   <li>with a mate that has a genome (or, sometimes, an inspiration): crossover per regime, sometimes
 *       followed by a one-gene mutation;</li>
 *   <li>otherwise: one to three genes stepped to nearby values.</li>
 * </ul>
 * A child equal to its parent, its mate or a recent failure (for fresh genomes: or an inspiration) is drawn
 * again. Genomes are normalized and rendered for the campaign's operator and dtype ({@link TaskContext#task()}:
 * log_softmax's genomes differ from softmax's in their epilogue and in the register share of their cluster regime,
 * {@link Genome#normalized(Task)}; float32 softmax for a request without a context). All randomness comes from
 * {@link ProposalRequest#random()}, so the same request and random state give the same proposal.
 */
public final class BuiltinAgent implements Agent {

    public static final String NAME = Defaults.BUILTIN_AGENT;
    private static final int ATTEMPTS = 64;
    private static final double INSPIRATION_CROSSOVER = 0.15;
    private static final double MUTATE_AFTER_CROSSOVER = 0.25;
    private static final double RANDOM_FRESH = 0.2;
    /** With fresh genomes on, the share of knobbed parents without a genome that start a genome instead. */
    private static final double FRESH_FOR_KNOBBED = 0.5;

    private final boolean freshGenomes;

    public BuiltinAgent() {
        this(true);
    }

    /** @param freshGenomes false: never start a genome of its own, only tune (and evolve genomes it is given) */
    public BuiltinAgent(boolean freshGenomes) {
        this.freshGenomes = freshGenomes;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Every draw comes from the request's randomness, and the agent keeps nothing between requests. */
    @Override
    public boolean proposesOffline() {
        return true;
    }

    @Override
    public Proposal propose(ProposalRequest request) {
        RandomGenerator random = request.random();
        Task task = taskOf(request);
        Precision dtype = task.dtype();
        Set<String> avoid = new HashSet<>();
        for (Candidate failure : request.recentFailures()) {
            genomeOf(failure, dtype).ifPresent(g -> avoid.add(key(g)));
        }
        Optional<Genome> parent = genomeOf(request.parent(), dtype);
        if (parent.isEmpty()) {
            Optional<KernelFile> knobbed = KnobTuner.knobbed(request.parent());
            boolean rendered = KernelRenderer.serves(task.op());
            boolean fresh = freshGenomes && rendered;
            if (knobbed.isPresent() && (!fresh || random.nextDouble() >= FRESH_FOR_KNOBBED)) {
                return tune(request, knobbed.get(), random);
            }
            if (!fresh) {
                throw new AgentException("builtin: " + request.parent().id() + " has no knobs to tune and no builtin "
                        + "genome, and " + (rendered ? "fresh_genomes is off"
                        : "the built-in genome does not render " + task.op().id() + " kernels"));
            }
            // A design other islands already hold adds nothing: start elsewhere.
            request.inspirations().forEach(c -> genomeOf(c, dtype).ifPresent(g -> avoid.add(key(g))));
            return fresh(request, task, random, avoid);
        }
        avoid.add(key(parent.get()));
        Optional<Candidate> mate = request.mate().filter(m -> genomeOf(m, dtype).isPresent());
        if (mate.isEmpty() && random.nextDouble() < INSPIRATION_CROSSOVER) {
            List<Candidate> inspirations = request.inspirations().stream()
                    .filter(c -> genomeOf(c, dtype).filter(g -> !g.equals(parent.get())).isPresent()).toList();
            if (!inspirations.isEmpty()) {
                mate = Optional.of(inspirations.get(random.nextInt(inspirations.size())));
            }
        }
        if (mate.isPresent()) {
            return crossover(parent.get(), mate.get(), task, random, avoid);
        }
        return mutate(parent.get(), task, random, avoid);
    }

    /**
     * The campaign's operator and dtype, which children are rendered for; float32 softmax, every genome's task before
     * there were others, for a request without one.
     */
    private static Task taskOf(ProposalRequest request) {
        TaskContext context = request.context();
        return context == null ? Task.softmax(Precision.FP32) : context.task();
    }

    /** A knobbed parent's child: a crossover with a mate (or an inspiration) that shares knob names, else a step. */
    private Proposal tune(ProposalRequest request, KernelFile parent, RandomGenerator random) {
        Set<String> avoid = new HashSet<>();
        avoid.add(parent.source());
        request.recentFailures().forEach(c -> avoid.add(c.source()));
        Optional<Candidate> mate = request.mate().filter(m -> sharesKnobs(parent, m));
        if (mate.isEmpty() && random.nextDouble() < INSPIRATION_CROSSOVER) {
            List<Candidate> inspirations = request.inspirations().stream()
                    .filter(c -> !parent.source().equals(c.source()) && sharesKnobs(parent, c)).toList();
            if (!inspirations.isEmpty()) {
                mate = Optional.of(inspirations.get(random.nextInt(inspirations.size())));
            }
        }
        if (mate.isPresent()) {
            Optional<Proposal> crossed = KnobTuner.crossover(parent, mate.get(),
                    KnobTuner.knobbed(mate.get()).orElseThrow(), random, avoid);
            if (crossed.isPresent()) {
                return crossed.get();
            }
        }
        return KnobTuner.tune(parent, random, avoid);
    }

    private static boolean sharesKnobs(KernelFile parent, Candidate other) {
        return KnobTuner.knobbed(other).filter(f -> f.knobs().names().stream()
                .anyMatch(n -> parent.knobs().get(n).isPresent())).isPresent();
    }

    private Proposal mutate(Genome parent, Task task, RandomGenerator random, Set<String> avoid) {
        Precision dtype = task.dtype();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            double roll = random.nextDouble();
            Genome child = GenomeSpace.mutate(parent, roll < 0.6 ? 1 : roll < 0.9 ? 2 : 3, random, dtype)
                    .normalized(task);
            if (!avoid.contains(key(child))) {
                return proposal(child, task, "mutate", GenomeSpace.changes(parent, child));
            }
        }
        throw new AgentException("builtin: no mutation of the parent gave a genome not already tried");
    }

    private Proposal crossover(Genome parent, Candidate mateCandidate, Task task, RandomGenerator random,
                               Set<String> avoid) {
        Precision dtype = task.dtype();
        Genome mate = genomeOf(mateCandidate, dtype).orElseThrow();
        avoid.add(key(mate));
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            GenomeSpace.Cross cross = GenomeSpace.crossover(parent, mate, random, dtype);
            Genome child = cross.child().normalized(task);
            String summary = "crossover with " + mateCandidate.id() + ": " + origins(cross.origins());
            if (avoid.contains(key(child)) || random.nextDouble() < MUTATE_AFTER_CROSSOVER) {
                Genome mutated = GenomeSpace.mutate(child, 1, random, dtype).normalized(task);
                summary += "; then " + GenomeSpace.changes(child, mutated);
                child = mutated;
            }
            if (!avoid.contains(key(child))) {
                return proposal(child, task, "crossover", summary);
            }
        }
        throw new AgentException("builtin: no crossover with " + mateCandidate.id() + " gave a new genome");
    }

    private static String origins(Map<String, GenomeSpace.Origin> origins) {
        List<String> fromMate = new ArrayList<>();
        origins.forEach((regime, origin) -> {
            if (origin == GenomeSpace.Origin.MATE) {
                fromMate.add(regime);
            } else if (origin == GenomeSpace.Origin.MIXED) {
                fromMate.add(regime + " (mixed)");
            }
        });
        return fromMate.isEmpty() ? "all regimes from the parent" : String.join(", ", fromMate) + " from the mate";
    }

    private Proposal fresh(ProposalRequest request, Task task, RandomGenerator random, Set<String> avoid) {
        Precision dtype = task.dtype();
        String why = " (" + request.parent().id() + " has no builtin genome)";
        Map<String, Genome> named = DefaultGenomes.named(task);
        List<String> names = new ArrayList<>(named.keySet());
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            double roll = random.nextDouble();
            if (roll < RANDOM_FRESH) {
                Genome child = GenomeSpace.random(random, DefaultGenomes.of(task), dtype).normalized(task);
                if (!avoid.contains(key(child))) {
                    return proposal(child, task, "fresh", "fresh: random genome" + why);
                }
            } else {
                // Half of the named draws take the default, the rest share the others.
                String name = roll < RANDOM_FRESH + (1 - RANDOM_FRESH) / 2 ? names.getFirst()
                        : names.get(1 + random.nextInt(names.size() - 1));
                Genome child = named.get(name).normalized(task);
                if (!avoid.contains(key(child))) {
                    return proposal(child, task, "fresh", "fresh: named genome '" + name + "'" + why);
                }
            }
        }
        throw new AgentException("builtin: every fresh genome drawn for " + request.parent().id() + " failed recently");
    }

    private static Proposal proposal(Genome child, Task task, String operator, String summary) {
        return new Proposal(KernelRenderer.render(child, task), Optional.of(child.toJson()), operator, summary,
                Optional.empty());
    }

    /**
     * A candidate's genome as this agent reads it, normalized for {@code dtype}; empty when it has none or not one of
     * ours.
     */
    static Optional<Genome> genomeOf(Candidate candidate, Precision dtype) {
        if (candidate.genome().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Genome.fromJson(candidate.genome().get(), DefaultGenomes.float32()).normalized(dtype));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The identity of a genome normalized for the request's dtype (every genome this agent compares is). */
    private static String key(Genome genome) {
        JsonNode json = genome.toJson();
        return json.toString();
    }
}
