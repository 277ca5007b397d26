package dev.kevo.eval;

import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.Ablation;
import dev.kevo.data.InputCase;
import dev.kevo.data.Tolerance;
import dev.kevo.data.Verdict;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Checks the output of timed launches chosen at random, so that a kernel cannot be fast by skipping work in
 * launches it expects nobody to look at.
 *
 * <p>Before every launch of the candidate while timing (warm-up included), y and the workspace are poisoned,
 * outside the timed events, as before a checked launch; the candidate therefore cannot tell a checked launch from an
 * unchecked one by reading either: what it would read is the same poison either way. Its input set is also changed in one element per row, at a
 * column drawn anew for every launch (raised just above the row: harness.cu, kv_salt_value; for a gradient, dy's
 * element raised to 2 + u, which moves the row's dot product: harness_backward.cu, kv_dy_salted), so an output
 * remembered from an earlier launch on the same set, under a key read from part of x, is wrong; noticing the change
 * takes reading the whole row, which is what computing the softmax costs. After the launch, outside the events, for the
 * launches drawn, x is held to that launch's input set bit for bit and y to the float64 reference, and the candidate's
 * lines are demoted in L2 (see {@link Workbench#candidateLines}). The reference is computed after the launch and
 * overwritten once compared, so no answer lies in device memory while a candidate runs. The draw comes from the
 * input seed, so {@code --seed} replays it.
 *
 * <p>How many: the i-th timed launch (from 1) is checked with probability {@code min(1, C / i)}. A kernel that
 * skips a fraction f of n timed launches, choosing the launches least likely to be checked (the last ones),
 * goes unseen with probability {@code prod(1 - C / i)} over the last f n launches, at most about
 * {@code ((1 - f) n / n)^C = (1 - f)^C} whatever n is. To move a shape's median a kernel must skip at least a third
 * of its timed launches (see {@link #MIN_SKIPPED_FRACTION}); {@code (2/3)^12 = 0.0077}, so with C = 12 such a
 * kernel is caught in more than 99 of 100 evaluations (the worst n in [3, 200] is computed in the test).
 * The first 12 timed launches are always checked, which covers the shortest shapes (5 repetitions) entirely;
 * 200 repetitions cost about 12 (1 + ln(200 / 12)) = 46 checks.
 */
final class TimedLaunchAudit implements AutoCloseable {
    /** C above: launches 1..C are always checked, launch i > C with probability C / i. */
    static final double CERTAIN_LAUNCHES = 12;
    /**
     * The smallest fraction of skipped timed launches that moves a median by more than the noise: with a fraction
     * f of launches taking ~0 time, the reported median is the honest distribution's quantile (0.5 - f) / (1 - f);
     * below f = 1/3 that is above its lower quartile, within the honest spread (a wider honest spread is flagged,
     * see {@link TimingShape}).
     */
    static final double MIN_SKIPPED_FRACTION = 1.0 / 3;
    /** Checks kept apart per shape; later ones share the last slot (its counts add up). */
    static final int SLOTS = 256;

    private final Gpu gpu;
    private final TrustedKernels trusted;
    private final Workbench bench;
    private final Tolerance tolerance;
    private final Ablation ablation;
    private final DeviceBuffer stats;
    private final DeviceBuffer slots;

    /** @param ablation safeguards switched off, for bench/check_costs.sh only */
    TimedLaunchAudit(Gpu gpu, TrustedKernels trusted, Workbench bench, Tolerance tolerance, long maxRows,
                     Ablation ablation) {
        this.gpu = gpu;
        this.trusted = trusted;
        this.bench = bench;
        this.tolerance = tolerance;
        this.ablation = ablation;
        this.stats = gpu.alloc(TrustedKernels.statsBytes(maxRows));
        this.slots = gpu.alloc((long) SLOTS * CheckCounts.BYTES);
    }

    /** Probability that the {@code launch}-th timed launch (from 1) is checked. */
    static double checkProbability(int launch) {
        return Math.min(1.0, CERTAIN_LAUNCHES / launch);
    }

    /**
     * The chance that a kernel skipping the last {@code skipped} of {@code n} timed launches (the launches least
     * likely to be checked) has none of them checked.
     */
    static double evasionProbability(int n, int skipped) {
        double p = 1;
        for (int i = n - skipped + 1; i <= n; i++) {
            p *= 1 - checkProbability(i);
        }
        return p;
    }

    /**
     * Starts the checks of one shape's timing, on input sets generated with {@code setSeeds} (case normal-1),
     * drawing the checked launches from {@code drawSeed}.
     */
    /** @param setCases the input case each input set was generated from, set by set as {@code setSeeds} */
    Session start(Shape shape, long workspaceBytes, long[] setSeeds, InputCase[] setCases, long drawSeed) {
        return new Session(shape, workspaceBytes, setSeeds, setCases, new SplittableRandom(drawSeed));
    }

    /**
     * The input cases timed launches run on, rotated over a shape's input sets and from shape to shape: rows like
     * users', not one distribution a shortcut could be tuned to (salted rows stay realistic, see kv_salt_value).
     */
    static final List<InputCase> TIMING_CASES = List.of(InputCase.NORMAL_1, InputCase.NORMAL_4, InputCase.MASKED);

    /** The case of input set {@code set} of shape {@code shapeIndex}. */
    static InputCase timingCase(int shapeIndex, int set) {
        return TIMING_CASES.get(Math.floorMod(shapeIndex + set, TIMING_CASES.size()));
    }

    /** One shape's timing: hooks around each candidate launch, then {@link #verify()}. */
    final class Session implements InterleavedTimer.Hooks {
        private final Shape shape;
        private final long workspaceBytes;
        private final long[] setSeeds;
        private final InputCase[] setCases;
        private final SplittableRandom draw;
        private final List<int[]> checked = new ArrayList<>();  // {timed launch, input set}
        private final long[] salts;  // per input set, the salt it is under now (0: as generated)
        private final Inputs[] inputs;  // per input set, where its inputs lie (what a salt moves)
        private int timedLaunches;

        private Session(Shape shape, long workspaceBytes, long[] setSeeds, InputCase[] setCases,
                        SplittableRandom draw) {
            this.shape = shape;
            this.workspaceBytes = workspaceBytes;
            this.setSeeds = setSeeds;
            this.setCases = setCases;
            this.draw = draw;
            this.salts = new long[setSeeds.length];
            this.inputs = new Inputs[setSeeds.length];
            for (int set = 0; set < setSeeds.length; set++) {
                inputs[set] = bench.inputs(set, shape);
            }
        }

        /** One launch: the input set to its next salt, y and the workspace poisoned as before a checked launch. */
        @Override
        public void before(int set, boolean timed) {
            long salt = ablation.perturb() ? 0 : draw.nextLong() | 1;
            trusted.prepare(inputs[set], shape, setSeeds[set], setCases[set], salts[set], salt, bench.outputs(),
                    ablation.poison() ? 0 : bench.yWords(shape), bench.workspace(),
                    ablation.poison() ? 0 : (workspaceBytes + Integer.BYTES - 1) / Integer.BYTES);
            salts[set] = salt;
        }

        /**
         * For a launch drawn for checking: the reference (one launch, two for rows longer than a reference chunk, which
         * leaves its scratch poisoned) and the comparison, whose counts add up in a slot cleared when the shape began.
         * Then one launch demotes the candidate's lines and, after a check, poisons the row statistics, so the answer
         * does not stay around for a later launch to find.
         */
        @Override
        public void after(int set, boolean timed) {
            boolean check = false;
            if (timed) {
                timedLaunches++;
                check = draw.nextDouble() < checkProbability(timedLaunches) && !ablation.checks();
            }
            if (check) {
                if (checked.isEmpty()) {
                    trusted.clearChecks(slots.pointer(), SLOTS);
                }
                int slot = Math.min(checked.size(), SLOTS - 1);
                Inputs inputs = bench.inputs(set, shape);
                trusted.reference(stats.pointer(), bench.referenceScratch(), inputs, shape, setSeeds[set],
                        setCases[set]);
                trusted.compareQueued(bench.outputs(), inputs, stats.pointer(),
                        slots.at((long) slot * CheckCounts.BYTES), shape, setSeeds[set], setCases[set],
                        salts[set], tolerance, false);
                checked.add(new int[] {timedLaunches, set});
            }
            trusted.demote(ablation.demote() ? List.of() : bench.candidateLines(set, shape, workspaceBytes),
                    stats.pointer(), check ? TrustedKernels.statsBytes(shape.rows()) / 4 : 0);
        }

        int timedLaunches() {
            return timedLaunches;
        }

        int checkedLaunches() {
            return checked.size();
        }

        /**
         * Returns the input sets to their generated values, then reads the checks.
         *
         * @throws Rejection {@code timed-output-wrong} naming the first checked launch whose output was wrong
         */
        void verify() {
            for (int set = 0; set < salts.length; set++) {
                if (salts[set] != 0) {
                    trusted.perturb(inputs[set], shape, setSeeds[set], setCases[set], salts[set], 0);
                    salts[set] = 0;
                }
            }
            List<CheckCounts> counts = trusted.counts(slots.pointer(), Math.min(checked.size(), SLOTS));
            for (int k = 0; k < counts.size(); k++) {
                CheckCounts c = counts.get(k);
                String problem = problem(c);
                if (problem != null) {
                    int[] launch = checked.get(k);
                    String which = k == SLOTS - 1 && checked.size() > SLOTS ? "one of timed launches "
                            + launch[0] + ".." + checked.getLast()[0] : "timed launch " + launch[0];
                    throw new Rejection(Verdict.TIMED_OUTPUT_WRONG, which + " of " + timedLaunches + " (input set "
                            + launch[1] + " of seed " + setSeeds[launch[1]] + ", changed per launch; " + checked.size()
                            + " launches checked at random): " + problem);
                }
            }
        }

        private String problem(CheckCounts c) {
            String at = c.firstBad() >= 0 ? ", first at row " + c.firstBad() / shape.cols() + " col "
                    + c.firstBad() % shape.cols() : "";
            if (c.inputChanged() > 0) {
                return c.inputChanged() + " input elements changed" + at;
            }
            if (c.unwritten() > 0) {
                return c.unwritten() + " of " + shape.elements() + " outputs never written" + at;
            }
            if (c.nonFinite() > 0) {
                return c.nonFinite() + " outputs NaN or Inf" + at;
            }
            if (!c.withinTolerance(tolerance)) {
                return c.violations() + " elements off by more than the tolerance, relative L2 error "
                        + String.format("%.2e", c.relativeL2()) + at;
            }
            return null;
        }
    }

    @Override
    public void close() {
        stats.close();
        slots.close();
    }
}
