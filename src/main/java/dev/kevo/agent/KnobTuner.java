package dev.kevo.agent;

import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Knob;
import dev.kevo.task.KnobRewriter;
import dev.kevo.task.Knobs;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The built-in agent's tuner for any kernel file that declares knobs: a child is its parent with one to three
 * knobs stepped to nearby allowed values, or with values taken from a mate that shares knob names, always within
 * the declared values and the knob rule. Only the header's current values change.
 */
final class KnobTuner {

    static final String TUNE = "tune";
    static final String CROSSOVER = "tune-crossover";
    private static final int ATTEMPTS = 64;
    private static final double FAR_STEP = 0.25;
    private static final double STEP_AFTER_CROSSOVER = 0.25;

    private KnobTuner() {
    }

    /** The candidate's file when it parses and declares knobs any of which can move. */
    static Optional<KernelFile> knobbed(Candidate candidate) {
        if (candidate.source() == null || candidate.source().isEmpty()) {
            return Optional.empty();
        }
        try {
            KernelFile file = ContractParser.parse(candidate.id() + ".cu", null, candidate.source());
            return file.knobs().knobs().stream().anyMatch(k -> k.values().size() > 1) ? Optional.of(file)
                    : Optional.empty();
        } catch (ContractException e) {
            return Optional.empty();
        }
    }

    /**
     * One to three knobs stepped: an integer knob moves one place along its sorted values (sometimes two), a
     * choice takes another of its names.
     *
     * @param avoid sources not to propose again (the parent's, recent failures')
     */
    static Proposal tune(KernelFile parent, RandomGenerator random, Set<String> avoid) {
        List<Knob> movable = parent.knobs().knobs().stream().filter(k -> k.values().size() > 1).toList();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            double roll = random.nextDouble();
            int count = Math.min(movable.size(), roll < 0.6 ? 1 : roll < 0.9 ? 2 : 3);
            Knobs child = step(parent.knobs(), movable, count, random);
            if (child.allowed()) {
                String source = KnobRewriter.rewrite(parent, changed(parent.knobs(), child));
                if (!avoid.contains(source)) {
                    return new Proposal(source, Optional.empty(), TUNE, child.movesFrom(parent.knobs()),
                            Optional.empty());
                }
            }
        }
        throw new AgentException("builtin: no step of " + parent.name().replaceFirst("\\.cu$", "")
                + "'s knobs (" + parent.knobs().describe() + ") gave an allowed combination not already tried");
    }

    /**
     * The parent's file with each knob it shares with the mate taking either parent's value (at least one the
     * mate's), sometimes followed by a one-knob step; empty when no mix differs from both parents and satisfies the
     * rule (then the caller steps the parent instead).
     */
    static Optional<Proposal> crossover(KernelFile parent, Candidate mateCandidate, KernelFile mate,
                                        RandomGenerator random, Set<String> avoid) {
        List<Knob> shared = parent.knobs().knobs().stream()
                .filter(k -> mate.knobs().get(k.name()).filter(m -> k.allows(m.value())).isPresent()).toList();
        List<Knob> movable = parent.knobs().knobs().stream().filter(k -> k.values().size() > 1).toList();
        for (int attempt = 0; attempt < ATTEMPTS && !shared.isEmpty(); attempt++) {
            Map<String, String> taken = new LinkedHashMap<>();
            for (Knob k : shared) {
                String theirs = mate.knobs().get(k.name()).orElseThrow().value();
                if (!theirs.equals(k.value()) && random.nextBoolean()) {
                    taken.put(k.name(), theirs);
                }
            }
            if (taken.isEmpty()) {
                continue;  // nothing from the mate is no crossover: draw again
            }
            Knobs mixed = parent.knobs().with(taken);
            String summary = "crossover with " + mateCandidate.id() + ": " + mixed.movesFrom(parent.knobs())
                    + " from the mate";
            Knobs child = mixed;
            if (random.nextDouble() < STEP_AFTER_CROSSOVER) {
                child = step(mixed, movable, 1, random);
                summary += "; then " + child.movesFrom(mixed);
            }
            if (!child.allowed() || child.current().equals(parent.knobs().current())) {
                continue;
            }
            String source = KnobRewriter.rewrite(parent, changed(parent.knobs(), child));
            if (!avoid.contains(source) && !source.equals(mateCandidate.source())) {
                return Optional.of(new Proposal(source, Optional.empty(), CROSSOVER, summary, Optional.empty()));
            }
        }
        return Optional.empty();
    }

    /** {@code count} distinct knobs of {@code movable}, each moved off its value in {@code from}. */
    private static Knobs step(Knobs from, List<Knob> movable, int count, RandomGenerator random) {
        List<Knob> pool = new ArrayList<>(movable);
        Map<String, String> moves = new LinkedHashMap<>();
        for (int i = 0; i < count && !pool.isEmpty(); i++) {
            Knob knob = from.get(pool.remove(random.nextInt(pool.size())).name()).orElseThrow();
            moves.put(knob.name(), moved(knob, random));
        }
        return from.with(moves);
    }

    private static String moved(Knob knob, RandomGenerator random) {
        List<String> values = knob.values();
        int at = knob.index();
        if (!knob.integer()) {
            int other = random.nextInt(values.size() - 1);
            return values.get(other >= at ? other + 1 : other);
        }
        int distance = random.nextDouble() < FAR_STEP ? 2 : 1;
        int direction = random.nextBoolean() ? 1 : -1;
        int to = at + direction * distance;
        if (to < 0 || to >= values.size()) {
            to = at - direction * distance;  // at an end: step the other way
        }
        to = Math.clamp(to, 0, values.size() - 1);
        if (to == at) {
            to = at == 0 ? 1 : at - 1;
        }
        return values.get(to);
    }

    private static Map<String, String> changed(Knobs before, Knobs after) {
        Map<String, String> values = new LinkedHashMap<>();
        after.knobs().forEach(k -> {
            if (!before.get(k.name()).orElseThrow().value().equals(k.value())) {
                values.put(k.name(), k.value());
            }
        });
        return values;
    }
}
