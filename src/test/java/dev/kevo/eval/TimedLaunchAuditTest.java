package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.MeasurementMethod;
import org.junit.jupiter.api.Test;

/**
 * The sizing of the random checks of timed launches: a kernel that skips enough launches to move a median is
 * caught in at least 99 of 100 evaluations, whatever the number of repetitions the stop rule lands on.
 */
class TimedLaunchAuditTest {

    @Test
    void skippingAThirdOfTheTimedLaunchesEscapesAtMostOnceInAHundredForEveryRepetitionCount() {
        MeasurementMethod m = MeasurementMethod.defaults();
        double worst = 0;
        for (int n = 3; n <= m.maxRepetitions(); n++) {
            int skipped = (int) Math.ceil(n * TimedLaunchAudit.MIN_SKIPPED_FRACTION);
            worst = Math.max(worst, TimedLaunchAudit.evasionProbability(n, skipped));
        }
        assertTrue(worst <= 0.01, "worst evasion probability " + worst);
        assertTrue(worst > 0, "later launches are not all checked, so some chance of escape remains: " + worst);
    }

    @Test
    void theShortestShapesAreCheckedInEveryTimedLaunch() {
        for (int i = 1; i <= MeasurementMethod.defaults().minRepetitions(); i++) {
            assertEquals(1.0, TimedLaunchAudit.checkProbability(i), "launch " + i);
        }
        assertEquals(0.0, TimedLaunchAudit.evasionProbability(10, 3), "all of the first 12 launches are checked");
    }

    @Test
    void theExpectedNumberOfChecksGrowsWithTheLogarithmOfTheRepetitions() {
        double expected = 0;
        for (int i = 1; i <= MeasurementMethod.defaults().maxRepetitions(); i++) {
            expected += TimedLaunchAudit.checkProbability(i);
        }
        assertTrue(expected > 40 && expected < 50, "expected checks at 200 repetitions: " + expected);
    }

    @Test
    void theEveryOtherLaunchSkipperOfIssue15IsCaughtAlmostSurely() {
        double worst = 0;
        for (int n = 20; n <= 200; n++) {
            worst = Math.max(worst, TimedLaunchAudit.evasionProbability(n, n / 2));
        }
        assertTrue(worst < 1e-3, "worst evasion of a half-skipper " + worst);
    }

    /** Timed launches run on several distributions: each shape's sets differ, and every case is timed somewhere. */
    @Test
    void timedInputsRotateOverRealisticCases() {
        java.util.Set<dev.kevo.data.InputCase> seen = java.util.EnumSet.noneOf(dev.kevo.data.InputCase.class);
        for (int shape = 0; shape < 16; shape++) {
            org.junit.jupiter.api.Assertions.assertNotEquals(TimedLaunchAudit.timingCase(shape, 0),
                    TimedLaunchAudit.timingCase(shape, 1), "two sets of one shape");
            seen.add(TimedLaunchAudit.timingCase(shape, 0));
        }
        assertEquals(java.util.Set.copyOf(TimedLaunchAudit.TIMING_CASES), seen, "one-set shapes rotate too");
        org.junit.jupiter.api.Assertions.assertFalse(seen.contains(dev.kevo.data.InputCase.DOMINANT),
                "no one-hot rows are timed");
    }
}
