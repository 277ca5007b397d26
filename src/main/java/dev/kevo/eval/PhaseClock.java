package dev.kevo.eval;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Passes phases on and notes how long each lasted; entering {@code null} ends the last one. Parts of a phase
 * ({@link #part}) are noted beside it under {@code phase.part}: they add up to no more than their phase, which still
 * counts them.
 */
final class PhaseClock implements Phase.Listener {
    private final Phase.Listener next;
    private final Map<String, Double> spent = new LinkedHashMap<>();
    private final Map<String, Double> parts = new LinkedHashMap<>();
    private Phase current;
    private long since = System.nanoTime();

    PhaseClock(Phase.Listener next) {
        this.next = next;
    }

    @Override
    public void entered(Phase phase) {
        long now = System.nanoTime();
        if (current != null) {
            spent.put(current.id(), (now - since) / 1e6);
        }
        current = phase;
        since = now;
        if (phase != null) {
            next.entered(phase);
        }
    }

    @Override
    public void expect(double seconds, String what) {
        next.expect(seconds, what);
    }

    /**
     * Notes a part of the phase now running, from {@code startNanos} ({@link System#nanoTime}) until now, under
     * {@code phase.name} (e.g. {@code check.beyond}); a part noted twice adds up.
     */
    void part(String name, long startNanos) {
        if (current == null) {
            throw new IllegalStateException("part " + name + " outside any phase");
        }
        parts.merge(current.id() + "." + name, (System.nanoTime() - startNanos) / 1e6, Double::sum);
    }

    /**
     * Milliseconds per phase id, in the order the phases ran (the phase still running is not in it), then the parts
     * noted, in the order first noted.
     */
    Map<String, Double> spent() {
        Map<String, Double> all = new LinkedHashMap<>(spent);
        all.putAll(parts);
        return all;
    }
}
