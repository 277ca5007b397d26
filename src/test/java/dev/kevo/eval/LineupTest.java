package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Roles of the four timed variants, read back from the timer's results in the order they were handed to it. */
class LineupTest {

    @Test
    void resultsInTimingOrderLandOnTheirRoles() {
        Lineup<String> roles = Lineup.ofTimingOrder(List.of("b", "c", "m", "k"));
        assertEquals("b", roles.baseline());
        assertEquals("c", roles.candidate());
        assertEquals("m", roles.memcpy());
        assertEquals("k", roles.copyKernel());
    }

    @Test
    void theBaselineIsTimedFirstAndTheCopiesLast() {
        assertEquals(List.of("baseline", "candidate", "memcpy", "copy kernel"),
                new Lineup<>("baseline", "candidate", "memcpy", "copy kernel").inTimingOrder());
        assertEquals(List.of(1, 9, 6, 11),
                new Lineup<>("b", "candidate", "memcpy", "copy kernel").map(String::length).inTimingOrder());
    }

    @Test
    void aResultListOfAnotherSizeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Lineup.ofTimingOrder(List.of(1, 2, 3)));
    }
}
