package dev.kevo.eval;

import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.Event;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.Ablation;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Times several variants of the same work side by side, following a {@link MeasurementMethod}: warm-up by
 * wall time, then rounds in which every variant runs once, in an order that rotates from round to round,
 * each launch after an L2 flush and on the next input set, each timed by its own pair of CUDA events.
 * A variant leaves the rounds once its median is pinned precisely enough, so a slow, steady baseline is not
 * repeated for the sake of a fast, jittery copy.
 */
final class InterleavedTimer {
    /** Rounds queued between synchronisations: enough to keep the GPU busy, few enough to stop promptly. */
    private static final int ROUNDS_PER_BATCH = 8;
    /** Repetitions kept even when a slow kernel runs past the time cap. */
    private static final int HARD_MIN_REPETITIONS = 3;

    /** One thing to time; {@code launch} enqueues it on the stream reading input set {@code set}. */
    interface Variant {
        String name();

        void launch(int set);

        /** Work queued around each of this variant's launches, outside its timed events. */
        default Hooks hooks() {
            return Hooks.NONE;
        }

        /**
         * Whether the flush before this variant's launches must also remove lines pinned at evict_last priority
         * (it costs a pass over the flush buffer); see {@link Workbench#flushL2(TrustedKernels, boolean)}.
         */
        default boolean flushPinnedLines() {
            return false;
        }

        /** A variant of the given name whose launch is {@code launch}. */
        static Variant of(String name, IntConsumer launch, Hooks hooks, boolean flushPinnedLines) {
            return new Variant() {
                @Override
                public String name() {
                    return name;
                }

                @Override
                public void launch(int set) {
                    launch.accept(set);
                }

                @Override
                public Hooks hooks() {
                    return hooks;
                }

                @Override
                public boolean flushPinnedLines() {
                    return flushPinnedLines;
                }
            };
        }
    }

    /**
     * Queued before each launch of a variant (before the L2 flush) and after it (after its end event);
     * {@code timed} is false in the warm-up.
     */
    interface Hooks {
        Hooks NONE = new Hooks() {
        };

        default void before(int set, boolean timed) {
        }

        default void after(int set, boolean timed) {
        }
    }

    /**
     * How long a batch of {@code rounds} rounds may take before the supervisor should give up on it, told to
     * the supervisor before each synchronisation (a hung launch cannot be interrupted from inside the worker).
     */
    interface Allowance {
        Allowance NONE = rounds -> Double.POSITIVE_INFINITY;

        double seconds(int rounds);
    }

    private final Gpu gpu;
    private final Workbench bench;
    private final TrustedKernels trusted;
    private final LaunchGate gate;
    private final MeasurementMethod method;
    private final Ablation ablation;

    /** @param ablation safeguards switched off, for bench/check_costs.sh only */
    InterleavedTimer(Gpu gpu, Workbench bench, TrustedKernels trusted, LaunchGate gate, MeasurementMethod method,
                     Ablation ablation) {
        this.gpu = gpu;
        this.bench = bench;
        this.trusted = trusted;
        this.gate = gate;
        this.method = method;
        this.ablation = ablation;
    }

    /** Stats per variant, in the order given. */
    List<Stats> measure(List<Variant> variants) {
        return measure(variants, Allowance.NONE, Phase.Listener.NONE, "timing");
    }

    /**
     * Stats per variant, in the order given; before each synchronisation {@code deadlines} is told how long the
     * queued work may take ({@code allowance}), naming it {@code what}.
     */
    List<Stats> measure(List<Variant> variants, Allowance allowance, Phase.Listener deadlines, String what) {
        return samples(variants, allowance, deadlines, what).stream().map(Stats::of).toList();
    }

    /** As {@link #measure(List, Allowance, Phase.Listener, String)}, the samples themselves (milliseconds). */
    List<double[]> samples(List<Variant> variants, Allowance allowance, Phase.Listener deadlines, String what) {
        int v = variants.size();
        int sets = Math.min(method.inputSets(), bench.inputSets());
        Event[][] events = new Event[ROUNDS_PER_BATCH * v][2];
        for (Event[] pair : events) {
            pair[0] = gpu.event();
            pair[1] = gpu.event();
        }
        try {
            warmUp(variants, sets, allowance, deadlines, what);
            List<List<Double>> samples = new ArrayList<>();
            variants.forEach(x -> samples.add(new ArrayList<>()));
            boolean[] done = new boolean[v];
            long start = System.nanoTime();
            int launches = 0;
            // The first batch stops at the minimum repetitions: a steady, slow baseline (the long single rows) is
            // then done after min_repetitions launches instead of a whole batch.
            int rounds = Math.min(ROUNDS_PER_BATCH, method.minRepetitions());
            // Each round is queued behind a closed gate and released once queued whole, so the GPU never waits on the
            // host inside a timed region: a few-microsecond kernel timed after a host-side gap looks several percent slower. Gating round
            // by round rather than the whole batch lets the GPU run one round while the host queues the next; behind
            // one gate per batch the GPU idled while all 8 rounds were queued, and on short shapes, with the checks'
            // work around each candidate launch, queueing a round takes about as long as running it.
            int roundsPerGate = ablation.overlap() ? Integer.MAX_VALUE : 1;
            while (true) {
                expect(deadlines, allowance.seconds(rounds), what);
                try {
                    for (int round = 0; round < rounds; round++) {
                        if (round % roundsPerGate == 0) {
                            gate.hold();
                        }
                        for (int k = 0; k < v; k++) {
                            int which = (round + k) % v;
                            if (!done[which]) {
                                timedLaunch(variants.get(which), launches++ % sets, events[round * v + k]);
                            }
                        }
                        if (round % roundsPerGate == roundsPerGate - 1) {
                            gate.open();
                        }
                    }
                } finally {
                    gate.open();  // the batch's last gate, and any left closed by a launch call that failed
                }
                sync("timing");
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < v; k++) {
                        int which = (round + k) % v;
                        if (!done[which]) {
                            Event[] pair = events[round * v + k];
                            samples.get(which).add((double) gpu.elapsedMillis(pair[0], pair[1]));
                        }
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                for (int k = 0; k < v; k++) {
                    done[k] = done[k] || done(samples.get(k), seconds);
                }
                if (allDone(done)) {
                    return samples.stream().map(x -> x.stream().mapToDouble(Double::doubleValue).toArray()).toList();
                }
                rounds = ROUNDS_PER_BATCH;
            }
        } finally {
            for (Event[] pair : events) {
                gpu.destroy(pair[0]);
                gpu.destroy(pair[1]);
            }
        }
    }

    private boolean done(List<Double> samples, double seconds) {
        int n = samples.size();
        if (n >= method.maxRepetitions()) {
            return true;
        }
        if (seconds >= method.maxSecondsPerShape() && n >= HARD_MIN_REPETITIONS) {
            return true;
        }
        return n >= method.minRepetitions() && method.preciseEnough(stats(samples));
    }

    private static boolean allDone(boolean[] done) {
        for (boolean d : done) {
            if (!d) {
                return false;
            }
        }
        return true;
    }

    private static Stats stats(List<Double> samples) {
        return Stats.of(samples.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /** Keeps the GPU busy with L2 flushes for {@code settleMillis}, so clocks are up before the first shape. */
    void settle() {
        long start = System.nanoTime();
        while ((System.nanoTime() - start) / 1e6 < method.settleMillis()) {
            for (int i = 0; i < 16; i++) {
                bench.flushL2(trusted);
            }
            sync("settle");
        }
    }

    private static void expect(Phase.Listener deadlines, double seconds, String what) {
        if (Double.isFinite(seconds)) {
            deadlines.expect(seconds, what);
        }
    }

    private void warmUp(List<Variant> variants, int sets, Allowance allowance, Phase.Listener deadlines,
                        String what) {
        long start = System.nanoTime();
        int rounds = 0;
        int launches = 0;
        // One round is always run (module load and lazy initialisation stay out of the numbers); a round longer
        // than the warm-up time is enough on its own.
        while (rounds < 1 || (System.nanoTime() - start) / 1e6 < method.warmupMillis()) {
            expect(deadlines, allowance.seconds(1), what + ", warm-up");
            for (Variant variant : variants) {
                int set = launches++ % sets;
                variant.hooks().before(set, false);
                if (method.flushL2()) {
                    bench.flushL2(trusted, variant.flushPinnedLines() && !ablation.pinnedFlush());
                }
                launch(variant, set);
                variant.hooks().after(set, false);
            }
            sync("warm-up");
            rounds++;
        }
    }

    private void timedLaunch(Variant variant, int set, Event[] pair) {
        variant.hooks().before(set, true);
        if (method.flushL2()) {
            bench.flushL2(trusted, variant.flushPinnedLines() && !ablation.pinnedFlush());
        }
        gpu.record(pair[0]);
        launch(variant, set);
        gpu.record(pair[1]);
        variant.hooks().after(set, true);
    }

    private void launch(Variant variant, int set) {
        try {
            variant.launch(set);
        } catch (CudaError e) {
            throw Faults.reject(e, "timing, " + variant.name());
        }
    }

    private void sync(String phase) {
        try {
            gpu.synchronize();
        } catch (CudaError e) {
            throw Faults.reject(e, phase);
        }
    }
}
