package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.cuda.DevicePointer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launches that demote a candidate's lines after each of its timed launches (and poison the reference's row
 * statistics after a check): as few as possible, and still every range, whole.
 */
class DemoteLaunchesTest {
    private static final DevicePointer POISON = DevicePointer.unallocated();

    private static List<TrustedKernels.Range> ranges(long... bytes) {
        List<TrustedKernels.Range> r = new ArrayList<>();
        for (long b : bytes) {
            r.add(new TrustedKernels.Range(DevicePointer.unallocated(), b));
        }
        return r;
    }

    @Test
    void fiveRangesAndThePoisonGoInOneLaunch() {
        List<TrustedKernels.Range> r = ranges(1000, 128, 0, 256 * 128, 129);
        List<TrustedKernels.DemoteLaunch> launches = TrustedKernels.demoteLaunches(r, POISON, 4096);
        assertEquals(1, launches.size());
        Object[] args = launches.getFirst().args();
        assertEquals(List.of(8L, 1L, 0L, 256L, 2L), List.of(args[1], args[3], args[5], args[7], args[9]),
                "lines per range, partial lines rounded up");
        for (int k = 0; k < 5; k++) {
            assertSame(r.get(k).base(), args[2 * k]);
        }
        assertSame(POISON, args[10]);
        assertEquals(4096L, args[11]);
        assertEquals(1024, launches.getFirst().items(), "4096 words of poison, 4 a thread, outnumber 256 lines");
    }

    @Test
    void moreRangesThanOneLaunchTakesSpillIntoMoreLaunchesWithThePoisonOnlyOnce() {
        // Sixteen input sets that fit in L2 together: x, y, workspace and 15 other sets.
        long[] bytes = new long[18];
        java.util.Arrays.fill(bytes, 128 * 10);
        List<TrustedKernels.DemoteLaunch> launches = TrustedKernels.demoteLaunches(ranges(bytes), POISON, 64);
        assertEquals(4, launches.size());
        long poisoned = launches.stream().filter(l -> (long) l.args()[11] > 0).count();
        assertEquals(1, poisoned);
        long lines = 0;
        for (TrustedKernels.DemoteLaunch l : launches) {
            for (int k = 0; k < 5; k++) {
                lines += (long) l.args()[2 * k + 1];
            }
        }
        assertEquals(18 * 10, lines, "every range demoted once");
    }

    @Test
    void thePoisonAloneStillLaunchesAndNothingAtAllLaunchesNothing() {
        List<TrustedKernels.DemoteLaunch> alone = TrustedKernels.demoteLaunches(List.of(), POISON, 8);
        assertEquals(1, alone.size());
        assertSame(POISON, alone.getFirst().args()[10]);
        assertTrue(TrustedKernels.demoteLaunches(List.of(), POISON, 0).isEmpty());
        assertTrue(TrustedKernels.demoteLaunches(ranges(0, 0), POISON, 0).isEmpty());
    }
}
