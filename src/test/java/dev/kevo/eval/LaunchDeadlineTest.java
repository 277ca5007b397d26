package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.PhaseLimits;
import org.junit.jupiter.api.Test;

class LaunchDeadlineTest {
    private final LaunchDeadline deadline = LaunchDeadline.of(PhaseLimits.defaults());

    @Test
    void theNaiveSeedsLaunchOn1x10e7FitsWithRoomWhileAHangCostsSeconds() {
        // H100: baseline 31 ms a launch on 1x10^7, the naive seed 1.5 s.
        double allowed = deadline.check(31);
        assertTrue(allowed > 2 * 1.5, "allowed " + allowed + " s");
        assertTrue(allowed < 6, "allowed " + allowed + " s");
    }

    @Test
    void aShortShapeAllowsAboutTheFloor() {
        // 32x50257, where the kernel of issue 15 spun: the baseline takes about 10 us.
        double allowed = deadline.check(0.01);
        assertTrue(allowed >= 1 && allowed < 1.01, "allowed " + allowed + " s");
    }

    @Test
    void aTimingBatchScalesWithTheCandidatesOwnCheckedLaunch() {
        double fast = deadline.timingBatch(8, 10, 31);
        double slow = deadline.timingBatch(8, 1500, 31);
        assertTrue(slow > 8 * 1.5 && fast < slow, fast + " s vs " + slow + " s");
    }
}
