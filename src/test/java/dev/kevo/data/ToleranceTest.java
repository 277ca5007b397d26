package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ToleranceTest {

    // Powers of two, so the boundary is exact in double: bound = 0.5 + 0.25 * |ref|.
    private final Tolerance tolerance = new Tolerance(1e-4, 0.5, 0.25);

    @Test
    void elementOkUpToTheBoundInclusive() {
        assertTrue(tolerance.elementOk(3.0, 2.0));     // |1.0| <= 0.5 + 0.5
        assertTrue(tolerance.elementOk(1.0, 2.0));
        assertFalse(tolerance.elementOk(Math.nextUp(3.0), 2.0));
        assertFalse(tolerance.elementOk(0.9999999, 2.0));
        assertTrue(tolerance.elementOk(2.0, 2.0));
    }

    @Test
    void relativePartUsesTheMagnitudeOfTheReference() {
        assertTrue(tolerance.elementOk(-3.0, -2.0));
        assertTrue(tolerance.elementOk(-1.0, -2.0));
        assertFalse(tolerance.elementOk(-3.0625, -2.0));
        // at ref = 0 only the absolute part is left
        assertTrue(tolerance.elementOk(0.5, 0.0));
        assertFalse(tolerance.elementOk(0.5625, 0.0));
    }

    @Test
    void nanAndInfinityAreNeverOk() {
        assertFalse(tolerance.elementOk(Double.NaN, 0.5));
        assertFalse(tolerance.elementOk(Double.POSITIVE_INFINITY, 0.5));
        assertFalse(Tolerance.defaults().elementOk(Double.NaN, 0.0));
    }

    @Test
    void defaultToleranceSeparatesFloatRoundingFromRealErrors() {
        double ref = 1.0 / 3.0;
        assertTrue(Tolerance.defaults().elementOk((float) ref, ref), "float rounding must pass");
        assertFalse(Tolerance.defaults().elementOk(ref * 1.01, ref), "a 1% error must fail");
        assertFalse(Tolerance.defaults().elementOk(1e-3, 0.0), "an unwritten-looking value must fail at ref 0");
    }

    @Test
    void rejectsNonsense() {
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(1e-5, -1e-6, 0));
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(1e-5, 0, -1));
        assertThrows(IllegalArgumentException.class, () -> new Tolerance(Double.NaN, 0, 0));
        new Tolerance(1e-5, 0, 0);
    }
}
