package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.PlanJudgement;
import dev.kevo.data.Shape;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What each plan was judged on is counted per plan, not per shape. */
class PlanLedgerTest {

    @Test
    void aPlanOwesEveryCaseAndTheRepeatUntilOneShapeOfItHadThem() {
        PlanLedger ledger = new PlanLedger(132);
        ledger.passed(0, new Shape(32, 128), 132, true, true);
        ledger.passed(1, new Shape(64, 77), 132, false, null);
        assertFalse(ledger.owesAllCases(0));
        assertFalse(ledger.owesRepeat(0));
        assertTrue(ledger.owesAllCases(1), "a fresh shape's two cases are not every case");
        assertTrue(ledger.owesRepeat(1));
        assertTrue(ledger.owesAllCases(2), "a plan never reached owes everything");
        ledger.passed(1, new Shape(8, 33), 132, true, false);
        List<PlanJudgement> judged = ledger.judgements();
        assertEquals(2, judged.size());
        PlanJudgement second = judged.get(1);
        assertEquals(2, second.plan(), "numbered from 1, as the header lists plans");
        assertEquals("8x33", second.allCases());
        assertEquals(Boolean.FALSE, second.deterministic(), "one differing repeat makes the plan nondeterministic");
        assertEquals("64x77", second.largest());
        assertTrue(second.complete());
    }

    @Test
    void smCountsCountOnlyWhereThePlanCouldLaunchAndLargestAndAtScaleFollowTheShapes() {
        PlanLedger ledger = new PlanLedger(132);
        Shape big = new Shape(16385, 131073);
        ledger.passed(0, new Shape(1, 1000000), 132, true, true);
        ledger.passed(0, new Shape(1, 1000000), 148, false, null);
        ledger.passed(0, new Shape(1, 1000000), 188, false, null);
        ledger.cannotLaunch(0, 188, "cooperative grid of 376 blocks, but only 264 can be resident");
        ledger.passed(0, big, 132, true, null);
        ledger.notJudged(0, "no shape past 2^31 elements with odd columns reaches it");
        PlanJudgement one = ledger.judgements().getFirst();
        assertEquals(List.of(132, 148), one.sms(), "188 could not launch here: not judged there");
        assertEquals(big.elements(), one.largestElements());
        assertEquals(List.of(big.toString()), one.atScale());
        assertEquals(2, one.notJudged().size(), one.notJudged().toString());
        assertTrue(one.notJudged().stream().anyMatch(l -> l.startsWith("188 SMs: cooperative")), one.notJudged().toString());
    }

    @Test
    void aPlanOnlyTriedAtAnotherCountIsRecordedButIncomplete() {
        PlanLedger ledger = new PlanLedger(132);
        ledger.passed(3, new Shape(1, 4096), 148, false, null);
        PlanJudgement four = ledger.judgements().getFirst();
        assertEquals(4, four.plan());
        assertNull(four.allCases());
        assertFalse(four.complete(), "never had every case at the device's own count");
        assertEquals(List.of(148), four.sms());
    }
}
