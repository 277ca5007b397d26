package dev.kevo.data;

import dev.kevo.KevoException;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Internal, for measuring what each safeguard of the timing phase costs (bench/check_costs.sh): the safeguards
 * switched off for this process, named in the system property {@value #PROPERTY} as a comma-separated list. Never on
 * by default, never documented for users: an evaluation run with any of them off does not guarantee what kevo
 * promises, and says so on stderr.
 *
 * <ul>
 * <li>{@code perturb}: the per-launch change of one element per row of the input set (against content-keyed caches)
 * <li>{@code poison}: y's poison before every timed launch of the candidate
 * <li>{@code demote}: the L2 demotion of the candidate's lines after each of its launches
 * <li>{@code checks}: the float64 reference and comparison of the timed launches drawn for checking
 * <li>{@code pinnedflush}: the evict_last read and demotion of the flush before the baseline's launches
 * <li>{@code persistreset}: the reset of persisting L2 lines before each shape is timed
 * <li>{@code deadlines}: the launch deadlines told to the supervisor (one message before each wait)
 * <li>{@code repeat}: the second launch of each shape on one input, compared bit for bit (deterministic)
 * <li>{@code overlap}: not a safeguard: the GPU running one timing round while the host queues the next (off: one
 *     gate per batch of rounds), to measure what the overlap saves
 * </ul>
 *
 * @param off the switches off, as a set rather than one flag each
 */
public record Ablation(Set<Switch> off) {
    public static final String PROPERTY = "kevo.ablate";
    public static final Ablation NONE = new Ablation(Set.of());

    /** One safeguard (or the overlap) that can be switched off, by the name {@value #PROPERTY} takes. */
    public enum Switch {
        PERTURB("perturb"), POISON("poison"), DEMOTE("demote"), CHECKS("checks"), PINNED_FLUSH("pinnedflush"),
        PERSIST_RESET("persistreset"), DEADLINES("deadlines"), REPEAT("repeat"), OVERLAP("overlap");

        private final String id;

        Switch(String id) {
            this.id = id;
        }

        public String id() {
            return id;
        }
    }

    public Ablation {
        off = off.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(off));
    }

    public static Ablation of(Switch... off) {
        return new Ablation(Set.of(off));
    }

    /**
     * Parses {@code perturb,poison,...} ({@code all} for every one); null or blank is {@link #NONE}.
     *
     * @throws IllegalArgumentException naming an unknown switch
     */
    public static Ablation parse(String spec) {
        if (spec == null || spec.isBlank()) {
            return NONE;
        }
        Set<Switch> off = EnumSet.noneOf(Switch.class);
        for (String name : spec.split(",")) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            if (n.equals("all")) {
                off.addAll(EnumSet.allOf(Switch.class));
            } else if (!n.isEmpty()) {
                off.add(Arrays.stream(Switch.values()).filter(w -> w.id.equals(n)).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException(PROPERTY + ": unknown switch '" + n
                                + "' (known: " + Arrays.stream(Switch.values()).map(Switch::id)
                                .collect(Collectors.joining(", ")) + ", all)")));
            }
        }
        return new Ablation(off);
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
        return !off.isEmpty();
    }

    public boolean perturb() {
        return off.contains(Switch.PERTURB);
    }

    public boolean poison() {
        return off.contains(Switch.POISON);
    }

    public boolean demote() {
        return off.contains(Switch.DEMOTE);
    }

    public boolean checks() {
        return off.contains(Switch.CHECKS);
    }

    public boolean pinnedFlush() {
        return off.contains(Switch.PINNED_FLUSH);
    }

    public boolean persistReset() {
        return off.contains(Switch.PERSIST_RESET);
    }

    public boolean deadlines() {
        return off.contains(Switch.DEADLINES);
    }

    public boolean repeat() {
        return off.contains(Switch.REPEAT);
    }

    public boolean overlap() {
        return off.contains(Switch.OVERLAP);
    }

    /** The switches off, in their declared order, as {@link #parse} reads them. */
    @Override
    public String toString() {
        return off.stream().sorted().map(Switch::id).collect(Collectors.joining(","));
    }
}
