package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Where an evaluation's buffers sit is drawn from its secret: replayable, aligned, and different every time. */
class WorkbenchPlacementTest {

    @Test
    void aShiftIsAMultipleOfItsStepWithinTheSpan() {
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 10_000; i++) {
            long shift = Workbench.shift(random.nextLong(), i % 5);
            assertEquals(0, shift % Workbench.SHIFT_STEP, "aligned as a user's tensor is: " + shift);
            assertTrue(shift >= 0 && shift < Workbench.SHIFT_SPAN, "within the span: " + shift);
        }
    }

    /** A replayed timing secret puts the buffers where they were, so a recorded evaluation replays exactly. */
    @Test
    void theSameSecretGivesTheSamePlaces() {
        assertEquals(Workbench.shift(42, 0), Workbench.shift(42, 0));
        assertNotEquals(Workbench.shift(42, 0), Workbench.shift(42, 1), "each buffer its own place");
    }

    /**
     * Over many evaluations an address modulo 2 MiB takes most of its possible values: no place a kernel could wait
     * for (kevo's buffers once always sat at 64 KiB) comes up more than chance allows.
     */
    @Test
    void placesSpreadOverTheWholeSpan() {
        Set<Long> seen = new HashSet<>();
        int atOldPlace = 0;
        for (long secret = 0; secret < 20_000; secret++) {
            long shift = Workbench.shift(secret * 0x9E3779B97F4A7C15L, 0);
            seen.add(shift);
            atOldPlace += shift == 0 ? 1 : 0;
        }
        long places = Workbench.SHIFT_SPAN / Workbench.SHIFT_STEP;
        assertTrue(seen.size() > places * 9 / 10, "distinct places among 20000 draws: " + seen.size() + " of " + places);
        assertTrue(atOldPlace <= 20, "draws at the old place, about 5 expected: " + atOldPlace);
        assertTrue(seen.stream().anyMatch(s -> s > Workbench.SHIFT_SPAN * 15 / 16), "the top of the span is reached");
    }
}
