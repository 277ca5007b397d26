package dev.kevo.data;

import dev.kevo.KevoException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Internal, for measuring what each safeguard of the timing phase costs (bench/check_costs.sh): the safeguards
 * switched off for this process, named in the system property {@value #PROPERTY} as a comma-separated list. Never on
 * by default, never documented for users: an evaluation run with any of them off does not guarantee what kevo
 * promises, and says so on stderr.
 *
 * @param perturb the per-launch change of one element per row of the input set (against content-keyed caches)
 * @param poison y's poison before every timed launch of the candidate
 * @param demote the L2 demotion of the candidate's lines after each of its launches
 * @param checks the float64 reference and comparison of the timed launches drawn for checking
 * @param pinnedFlush the evict_last read and demotion of the flush before the baseline's launches
 * @param persistReset the reset of persisting L2 lines before each shape is timed
 * @param deadlines the launch deadlines told to the supervisor (one message before each wait)
 * @param overlap not a safeguard: the GPU running one timing round while the host queues the next (off: one gate per
 *     batch of rounds, as before issue 15's cost work), to measure what the overlap saves
 */
public record Ablation(boolean perturb, boolean poison, boolean demote, boolean checks, boolean pinnedFlush,
                       boolean persistReset, boolean deadlines, boolean overlap) {
    public static final String PROPERTY = "kevo.ablate";
    public static final Ablation NONE = new Ablation(false, false, false, false, false, false, false, false);
    public static final List<String> NAMES = List.of("perturb", "poison", "demote", "checks", "pinnedflush", "persistreset",
            "deadlines", "overlap");

    /**
     * Parses {@code perturb,poison,...} ({@code all} for every one); null or blank is {@link #NONE}.
     *
     * @throws IllegalArgumentException naming an unknown switch
     */
    public static Ablation parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        Set<String> off = new TreeSet<>();
        for (String name : spec.split(",")) {
            String n = name.trim().toLowerCase(java.util.Locale.ROOT);
            if (n.equals("all")) {
                off.addAll(NAMES);
            } else if (NAMES.contains(n)) {
                off.add(n);
            } else if (!n.isEmpty()) {
                throw new IllegalArgumentException(PROPERTY + ": unknown switch '" + n + "' (known: "
                        + String.join(", ", NAMES) + ", all)");
            }
        }
        return new Ablation(off.contains("perturb"), off.contains("poison"), off.contains("demote"),
                off.contains("checks"), off.contains("pinnedflush"), off.contains("persistreset"), off.contains("deadlines"), off.contains("overlap"));
    }

    /** This process's setting, read once by whoever builds an evaluator. */
    public static Ablation fromSystemProperty() {
        Ablation a;
        try {
            a = parse(System.getProperty(PROPERTY));
        } catch (IllegalArgumentException e) {
            throw KevoException.input(e.getMessage());
        }
        if (a.any()) {
            System.err.println("kevo: " + PROPERTY + " switches off " + a + ": these timings prove nothing");
        }
        return a;
    }

    public boolean any() {
        return perturb || poison || demote || checks || pinnedFlush || persistReset || deadlines || overlap;
    }

    @Override
    public String toString() {
        boolean[] on = {perturb, poison, demote, checks, pinnedFlush, persistReset, deadlines, overlap};
        return String.join(",", java.util.stream.IntStream.range(0, on.length).filter(i -> on[i]).mapToObj(NAMES::get)
                .toList());
    }
}
