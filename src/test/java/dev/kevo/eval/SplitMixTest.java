package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SplitMixTest {

    @Test
    void mixIsSplitMix64() {
        // first outputs of the reference splitmix64 for seeds 0 and 1 (Vigna, splitmix64.c)
        assertEquals(0xE220A8397B1DCDAFL, SplitMix.mix(0));
        assertEquals(0x910A2DEC89025CC1L, SplitMix.mix(1));
    }

    @Test
    void mixMatchesTheGeneratorKernel() {
        // trusted.cu's kv_mix must be the same function, or a recorded seed would not replay
        String trusted = dev.kevo.cuda.Prelude.resource(SplitMix.class, "trusted.cu");
        for (String constant : new String[] {"0x9E3779B97F4A7C15", "0xBF58476D1CE4E5B9", "0x94D049BB133111EB"}) {
            assertTrue(trusted.contains(constant), constant);
        }
    }

    @Test
    void deterministic() {
        for (long master : new long[] {0, 1, -1, 0x1234_5678_9ABCL, Long.MIN_VALUE}) {
            for (int shape = 0; shape < 4; shape++) {
                for (int salt = -1; salt < 3; salt++) {
                    assertEquals(SplitMix.derive(master, shape, salt), SplitMix.derive(master, shape, salt));
                }
            }
        }
        assertEquals(SplitMix.mix(42 ^ SplitMix.mix((3L << 32) | 5)), SplitMix.derive(42, 3, 5));
    }

    @Test
    void sensitiveToEveryInput() {
        long base = SplitMix.derive(42, 3, 5);
        assertNotEquals(base, SplitMix.derive(43, 3, 5));
        assertNotEquals(base, SplitMix.derive(42, 4, 5));
        assertNotEquals(base, SplitMix.derive(42, 3, 6));
        assertNotEquals(SplitMix.derive(42, 1, 0), SplitMix.derive(42, 0, 1), "shape and salt do not commute");
        assertNotEquals(SplitMix.derive(42, 0, -1), SplitMix.derive(42, -1, 0));
        // a one-bit change flips about half the output bits
        int flipped = Long.bitCount(base ^ SplitMix.derive(42 ^ 1L << 40, 3, 5));
        assertTrue(flipped > 16 && flipped < 48, "bits flipped: " + flipped);
    }

    @Test
    void noCollisionsOverARealisticGrid() {
        Set<Long> seen = new HashSet<>();
        for (int shape = 0; shape < 64; shape++) {
            for (int salt = 0; salt < 64; salt++) {
                assertTrue(seen.add(SplitMix.derive(7, shape, salt)), shape + "/" + salt);
            }
        }
    }
}
