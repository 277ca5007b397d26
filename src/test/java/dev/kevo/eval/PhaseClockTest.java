package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The evaluator's phase clock: phases as they ran, then the parts of a phase beside them, each within its phase. */
class PhaseClockTest {

    @Test
    void partsAreNotedUnderTheirPhaseAfterThePhasesAndWithinThem() throws InterruptedException {
        List<Phase> passedOn = new ArrayList<>();
        PhaseClock clock = new PhaseClock(passedOn::add);
        clock.entered(Phase.COMPILE);
        clock.entered(Phase.CHECK);
        long start = System.nanoTime();
        Thread.sleep(20);
        clock.part("suite", start);
        start = System.nanoTime();
        Thread.sleep(5);
        clock.part("beyond", start);
        start = System.nanoTime();
        Thread.sleep(5);
        clock.part("beyond", start);
        clock.entered(Phase.TIMING);
        clock.entered(null);

        Map<String, Double> spent = clock.spent();
        assertEquals(List.of("compile", "check", "timing", "check.suite", "check.beyond"), List.copyOf(spent.keySet()));
        assertEquals(List.of(Phase.COMPILE, Phase.CHECK, Phase.TIMING), passedOn, "phases passed on, parts not");
        assertTrue(spent.get("check.suite") >= 20, spent.toString());
        assertTrue(spent.get("check.beyond") >= 10, "a part noted twice adds up: " + spent);
        assertTrue(spent.get("check.suite") + spent.get("check.beyond") <= spent.get("check"),
                "the parts fit in their phase: " + spent);
    }

    @Test
    void aPartOutsideAnyPhaseIsABug() {
        PhaseClock clock = new PhaseClock(Phase.Listener.NONE);
        assertThrows(IllegalStateException.class, () -> clock.part("suite", System.nanoTime()));
    }
}
