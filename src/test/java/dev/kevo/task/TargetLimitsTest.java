package dev.kevo.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What kevo check holds a launch to without a GPU: the target's shared memory per block, and clusters. */
class TargetLimitsTest {

    private static ResolvedPlan.Launch launch(int smem, int cluster) {
        return new ResolvedPlan.Launch("k", 8, 512, smem, false, cluster, List.of());
    }

    @Test
    void sharedMemoryPerBlockIsHeldToTheTargetsOptInLimit() {
        TargetLimits hopper = TargetLimits.of("sm_90").orElseThrow();
        assertEquals(Optional.empty(), hopper.violation(launch(227 * 1024, 1), 0, "sm_90"));
        String why = hopper.violation(launch(227 * 1024, 1), 16, "sm_90").orElseThrow();
        assertTrue(why.contains("232464 bytes of shared memory per block, sm_90 allows 232448"), why);
        String ampere = TargetLimits.of("sm_86").orElseThrow().violation(launch(128 * 1024, 1), 0, "sm_86").orElseThrow();
        assertTrue(ampere.contains("sm_86 allows 101376"), ampere);
    }

    @Test
    void clustersNeedComputeCapabilityNine() {
        assertEquals(Optional.empty(), TargetLimits.of("sm_90a").orElseThrow().violation(launch(0, 8), 0, "sm_90a"));
        String why = TargetLimits.of("sm_80").orElseThrow().violation(launch(0, 4), 0, "sm_80").orElseThrow();
        assertTrue(why.contains("no thread-block clusters"), why);
        assertEquals(Optional.empty(), TargetLimits.of("sm_80").orElseThrow().violation(launch(0, 1), 0, "sm_80"));
    }

    @Test
    void anUnknownTargetIsHeldToNothingHere() {
        assertEquals(Optional.empty(), TargetLimits.of("sm_999"));
        assertEquals(Optional.empty(), TargetLimits.of("compute_90"));
    }
}
