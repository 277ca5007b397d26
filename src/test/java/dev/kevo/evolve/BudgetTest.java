package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.ModelUsage;
import dev.kevo.data.Spend;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The stop rule, asked before each evaluation (claim) and between generations (stopReason). */
class BudgetTest {
    private final AtomicLong now = new AtomicLong(1_000_000);

    private Budget budget(int evaluations, double wallMinutes, int generations, int noImprovement, double cost) {
        Budget b = new Budget(new CampaignConfig.Stop(evaluations, wallMinutes, generations, noImprovement, cost),
                now::get);
        b.start();
        return b;
    }

    private static ModelUsage costing(double cost) {
        return ModelUsage.of("m", 1, 1, 10, 20, cost);
    }

    @Test
    void claimsCountUntilTheEvaluationLimitAndNoFurther() {
        Budget b = budget(3, 0, 0, 0, 0);
        assertTrue(b.claim());
        assertTrue(b.claim());
        assertEquals(Optional.empty(), b.stopReason(0, 0));
        assertTrue(b.claim());
        assertFalse(b.claim(), "the fourth evaluation does not start");
        assertEquals(3, b.evaluated());
        assertEquals(Optional.of("evaluations: 3 of 3"), b.stopReason(0, 0));
    }

    @Test
    void theEvaluationLimitHoldsWhenManyChildrenClaimAtOnce() throws Exception {
        Budget b = budget(50, 0, 0, 0, 0);
        AtomicInteger granted = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 20; i++) {
                    if (b.claim()) {
                        granted.incrementAndGet();
                    }
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(50, granted.get());
        assertEquals(50, b.evaluated());
    }

    @Test
    void wallTimeEndsTheCampaignAndStopsNewEvaluations() {
        Budget b = budget(0, 2, 0, 0, 0);
        now.addAndGet(119_999);
        assertTrue(b.claim());
        now.addAndGet(1);
        assertFalse(b.claim());
        assertEquals(Optional.of("wall time: 2.0 min"), b.stopReason(1, 0));
    }

    /**
     * A generation whose predecessor took longer than the time left is not started: its children would claim their
     * evaluations at once and run it whole past the limit. Evaluations still start until the limit itself.
     */
    @Test
    void noGenerationStartsThatTheLastOneSaysWouldEndPastTheWallTime() {
        Budget b = budget(0, 2, 0, 0, 0);
        b.generationStarted();
        now.addAndGet(40_000);
        b.generationEnded();
        assertEquals(Optional.empty(), b.stopReason(1, 0), "80 s left, a generation takes 40");
        now.addAndGet(40_000);
        assertEquals(Optional.empty(), b.stopReason(1, 0), "40 s left, just enough");
        now.addAndGet(1);
        assertEquals(Optional.of("wall time: 2.0 min (the next generation would end past it)"), b.stopReason(2, 0));
        assertTrue(b.claim(), "an evaluation still starts: the limit itself is not reached");
    }

    @Test
    void earlierRunsTimeAndEvaluationsCountAfterAResume() {
        Budget b = budget(10, 2, 0, 0, 0);
        b.continueFrom(new CampaignState(3, 9, List.of(), null, 0, 90_000, Spend.NONE));
        assertEquals(9, b.evaluated());
        now.addAndGet(29_000);
        assertTrue(b.claim(), "the tenth evaluation, at 1:59 of 2 minutes");
        assertEquals(Optional.of("evaluations: 10 of 10"), b.stopReason(3, 0));
        assertEquals(119_000, b.state(3, List.of(), null, 0).elapsedMillis());
    }

    @Test
    void modelCostStopsNewEvaluationsOnceItReachesTheLimit() {
        Budget b = budget(0, 0, 0, 0, 0.05);
        b.pay(costing(0.03));
        b.pay(null);
        assertTrue(b.claim());
        b.pay(costing(0.02));
        assertFalse(b.claim());
        assertEquals(Optional.of("cost: 0.0500 of 0.0500"), b.stopReason(0, 0));
        assertEquals(0.05, b.state(0, List.of(), null, 0).spend().cost(), 1e-12);
    }

    @Test
    void generationsAndNoImprovementEndOnlyBetweenGenerations() {
        Budget b = budget(0, 0, 5, 2, 0);
        assertTrue(b.claim(), "these limits never stop an evaluation");
        assertEquals(Optional.empty(), b.stopReason(4, 1));
        assertEquals(Optional.of("generations: 5"), b.stopReason(5, 0));
        assertEquals(Optional.of("no improvement for 2 generations"), b.stopReason(4, 2));
        assertFalse(b.spent());
    }

    @Test
    void theBudgetsOwnLimitsAreReportedFirst() {
        Budget b = budget(1, 0, 1, 0, 0);
        b.claim();
        assertEquals(Optional.of("evaluations: 1 of 1"), b.stopReason(1, 0));
    }

    @Test
    void aRecoveredChildCountsEvenPastTheLimit() {
        Budget b = budget(1, 0, 0, 0, 0);
        b.claim();
        b.countRecovered();
        assertEquals(2, b.evaluated(), "it was judged before the kill, so it counts");
    }
}
