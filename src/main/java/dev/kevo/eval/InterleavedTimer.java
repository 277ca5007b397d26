package dev.kevo.eval;

import dev.kevo.result.Stats;

import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.Gpu;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUevent;

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
    }

    private final Gpu gpu;
    private final Workbench bench;
    private final TrustedKernels trusted;
    private final MeasurementMethod method;

    InterleavedTimer(Gpu gpu, Workbench bench, TrustedKernels trusted, MeasurementMethod method) {
        this.gpu = gpu;
        this.bench = bench;
        this.trusted = trusted;
        this.method = method;
    }

    /** Stats per variant, in the order given. */
    List<Stats> measure(List<Variant> variants) {
        int v = variants.size();
        int sets = Math.min(method.inputSets(), bench.inputSets());
        CUevent[][] events = new CUevent[ROUNDS_PER_BATCH * v][2];
        for (CUevent[] pair : events) {
            pair[0] = gpu.event();
            pair[1] = gpu.event();
        }
        try (Gpu.HostFlag gateFlag = gpu.hostFlag()) {
            warmUp(variants, sets);
            List<List<Double>> samples = new ArrayList<>();
            variants.forEach(x -> samples.add(new ArrayList<>()));
            boolean[] done = new boolean[v];
            long start = System.nanoTime();
            int launches = 0;
            // The first batch stops at the minimum repetitions: a steady 31 ms baseline (1x10^7) is then done
            // after 5 launches instead of 8.
            int rounds = Math.min(ROUNDS_PER_BATCH, method.minRepetitions());
            while (true) {
                // The batch is queued behind a closed gate and released at once, so the GPU never waits on the
                // host inside a timed region: a 5 us kernel timed after a host-side gap looked 5-9% slower.
                gateFlag.set(0);
                trusted.gate(gateFlag.pointer());
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < v; k++) {
                        int which = (round + k) % v;
                        if (!done[which]) {
                            timedLaunch(variants.get(which), launches++ % sets, events[round * v + k]);
                        }
                    }
                }
                gateFlag.set(1);
                sync("timing");
                for (int round = 0; round < rounds; round++) {
                    for (int k = 0; k < v; k++) {
                        int which = (round + k) % v;
                        if (!done[which]) {
                            CUevent[] pair = events[round * v + k];
                            samples.get(which).add((double) gpu.elapsedMillis(pair[0], pair[1]));
                        }
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                for (int k = 0; k < v; k++) {
                    done[k] = done[k] || done(samples.get(k), seconds);
                }
                if (allDone(done)) {
                    return samples.stream().map(InterleavedTimer::stats).toList();
                }
                rounds = ROUNDS_PER_BATCH;
            }
        } finally {
            for (CUevent[] pair : events) {
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

    private void warmUp(List<Variant> variants, int sets) {
        long start = System.nanoTime();
        int rounds = 0;
        int launches = 0;
        // One round is always run (module load and lazy initialisation stay out of the numbers); a round longer
        // than the warm-up time is enough on its own.
        while (rounds < 1 || (System.nanoTime() - start) / 1e6 < method.warmupMillis()) {
            for (Variant variant : variants) {
                if (method.flushL2()) {
                    bench.flushL2(trusted);
                }
                launch(variant, launches++ % sets);
            }
            sync("warm-up");
            rounds++;
        }
    }

    private void timedLaunch(Variant variant, int set, CUevent[] pair) {
        if (method.flushL2()) {
            bench.flushL2(trusted);
        }
        gpu.record(pair[0]);
        launch(variant, set);
        gpu.record(pair[1]);
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
