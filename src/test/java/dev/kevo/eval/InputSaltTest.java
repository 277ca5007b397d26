package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.InputCase;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The seeds an evaluation derives from a candidate's recorded seed: one range per use, and stable across releases. */
class InputSaltTest {

    @Test
    void noTwoUsesShareAnInputOnAShape() {
        Set<Long> seen = new HashSet<>();
        for (InputSalt salt : InputSalt.values()) {
            for (int index = 0; index < InputSalt.SPAN; index++) {
                assertTrue(seen.add(salt.derive(42, 3, index)), salt + " " + index + " repeats an earlier seed");
            }
        }
    }

    @Test
    void everyUseFitsItsRange() {
        assertTrue(InputCase.values().length <= InputSalt.SPAN, "input cases");
        assertThrows(IllegalArgumentException.class, () -> InputSalt.TIMING_SET.derive(42, 0, InputSalt.SPAN));
        assertThrows(IllegalArgumentException.class, () -> InputSalt.CHECK_CASE.derive(42, 0, -1));
    }

    @Test
    void recordedSeedsReplayTheInputsTheyHadWhenTheSaltsWereBareNumbers() {
        // Campaigns on disk recorded seeds under these salts; a renumbering would silently change what they replay.
        assertEquals(SplitMix.derive(7, 2, 5), InputSalt.CHECK_CASE.derive(7, 2, 5));
        assertEquals(SplitMix.derive(7, 2, 1003), InputSalt.TIMING_SET.derive(7, 2, 3));
        assertEquals(SplitMix.derive(7, 2, 2000), InputSalt.AFTER_TIMING.derive(7, 2, 0));
        assertEquals(SplitMix.derive(7, 2, 3001), InputSalt.TIMING_AUDIT.derive(7, 2, 1));
    }
}
