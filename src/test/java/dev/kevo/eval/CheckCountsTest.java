package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CheckCountsTest {
    private static CheckCounts counts(double error, double rounding) {
        return new CheckCounts(0, 0, 0, 0, -1, error * error, 1, 0, rounding * rounding);
    }

    @Test
    void whatABaselineIsHeldToIsItsErrorBeyondWhatRoundingToYsTypeAllows() {
        assertEquals(3e-5, counts(3e-5, 0).relativeL2BeyondRounding(), 1e-15, "float32: the relative L2 itself");
        assertEquals(0, counts(2.0e-3, 2.0e-3).relativeL2BeyondRounding(), "a bf16 answer rounded to nearest even");
        assertEquals(2.0e-3 - 1.25 * 1.0e-3, counts(2.0e-3, 1.0e-3).relativeL2BeyondRounding(), 1e-15,
                "one that truncates shows what it adds");
    }
}
