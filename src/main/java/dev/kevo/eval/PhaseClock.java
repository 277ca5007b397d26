package dev.kevo.eval;

import java.util.LinkedHashMap;
import java.util.Map;

/** Passes phases on and notes how long each lasted; entering {@code null} ends the last one. */
final class PhaseClock implements Phase.Listener {
    private final Phase.Listener next;
    private final Map<String, Double> spent = new LinkedHashMap<>();
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

    /** Milliseconds per phase id, in the order the phases ran; the phase still running is not in it. */
    Map<String, Double> spent() {
        return spent;
    }
}
