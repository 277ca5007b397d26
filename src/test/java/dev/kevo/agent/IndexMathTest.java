package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import org.junit.jupiter.api.Test;

/**
 * The index arithmetic of {@link KernelRenderer#LIBRARY}, restated in Java, run over many row lengths,
 * alignments and layouts: every element of a row is touched exactly once, nothing outside it is, and every
 * vector access is aligned. Only the integer formulas are restated (peel, lane and chunk assignment, the
 * streaming loop), line for line; if they change in the CUDA they must change here.
 */
class IndexMathTest {

    /** peel&lt;V&gt;(base, cols): head scalars up to the first V-aligned element, nv vectors, tail scalars. */
    record Peel(int head, int nv, int tail) {
        static Peel of(long base, int cols, int v) {
            int head = v == 1 ? 0 : Math.min(cols, (int) ((v - (base & (v - 1))) & (v - 1)));
            int nv = (cols - head) / v;
            return new Peel(head, nv, cols - head - nv * v);
        }
    }

    /** Marks one element; fails on a repeat or an element outside the row. */
    private static void touch(int[] seen, long c, String where) {
        assertTrue(c >= 0 && c < seen.length, where + ": column " + c + " outside the row");
        seen[(int) c]++;
    }

    private static void assertOnce(int[] seen, String where) {
        for (int c = 0; c < seen.length; c++) {
            assertEquals(1, seen[c], where + ": column " + c);
        }
    }

    private static void vector(int[] seen, long base, Peel p, long q, int v, String where) {
        assertEquals(0, (base + p.head() + q * v) % v, where + ": misaligned vector " + q);
        for (int e = 0; e < v; e++) {
            touch(seen, p.head() + q * v + e, where);
        }
    }

    private static void extras(int[] seen, Peel p, int thread, int v) {
        if (v > 1 && thread < p.head()) {
            touch(seen, thread, "head");
        }
        if (v > 1 && thread < p.tail()) {
            touch(seen, p.head() + (long) p.nv() * v + thread, "tail");
        }
    }

    /**
     * register_rows: lane l of a G-thread group holds vectors l + k * G, k < N, plus head/tail element l. Vectors of 8
     * are 16-bit elements; normalization gives such rows groups of at least 8 lanes, for up to 7 peeled elements.
     */
    @Test
    @Exhaustive
    void registerRowsTouchEveryElementOnce() {
        for (int v : new int[] {1, 2, 4, 8}) {
            for (int group : new int[] {4, 8, 16, 32, 64, 256}) {
                if (group < v - 1) {
                    continue;
                }
                for (int vectors : new int[] {1, 2, 3, 8}) {
                    int capacity = group * vectors * v;
                    for (int cols = 1; cols <= capacity; cols += cols < 70 ? 1 : 7) {
                        for (long row = 0; row < 4; row++) {
                            String where = "v" + v + " g" + group + " n" + vectors + " " + row + "x" + cols;
                            long base = row * cols;
                            Peel p = Peel.of(base, cols, v);
                            int[] seen = new int[cols];
                            for (int lane = 0; lane < group; lane++) {
                                for (int k = 0; k < vectors; k++) {
                                    int q = lane + k * group;
                                    if (q < p.nv()) {
                                        vector(seen, base, p, q, v, where);
                                    }
                                }
                                extras(seen, p, lane, v);
                            }
                            assertOnce(seen, where);
                        }
                    }
                }
            }
        }
    }

    /** chunk_of and the streaming loop: chunk k of a row takes vectors [q0, q1), chunk 0 the extras too. */
    @Test
    void splitChunksAndStreamingLoopsTouchEveryElementOnce() {
        int[] colsList = {1, 2, 3, 5, 7, 31, 64, 100, 1023, 4097, 10007};
        for (int v : new int[] {1, 2, 4, 8}) {
            for (int cols : colsList) {
                for (int chunks : new int[] {1, 2, 3, 7, 64, 5000}) {
                    for (int threads : new int[] {32, 64}) {
                        for (int tile : new int[] {1, 3, 4}) {
                            for (long row = 0; row < 4; row++) {
                                String where = "v" + v + " " + row + "x" + cols + " chunks " + chunks + " t" + threads
                                        + " tile " + tile;
                                long base = row * cols;
                                Peel p = Peel.of(base, cols, v);
                                int[] seen = new int[cols];
                                long per = ((long) p.nv() + chunks - 1) / chunks;
                                for (int k = 0; k < chunks; k++) {
                                    long q0 = Math.min(p.nv(), k * per);
                                    long q1 = Math.min(p.nv(), q0 + per);
                                    for (int t = 0; t < threads; t++) {
                                        for (long q = q0 + t; q < q1; q += (long) threads * tile) {
                                            for (int j = 0; j < tile; j++) {
                                                long qj = q + (long) j * threads;
                                                if (qj < q1) {
                                                    vector(seen, base, p, qj, v, where);
                                                }
                                            }
                                        }
                                        if (k == 0) {
                                            extras(seen, p, t, v);
                                        }
                                    }
                                }
                                assertOnce(seen, where);
                            }
                        }
                    }
                }
            }
        }
    }

    /** Groups of G lanes in a warp read slot lane &amp; (WARPS - 1): every lane sees all warps' values. */
    @Test
    void secondStageOfTheBlockReductionSeesEveryWarp() {
        for (int warps = 2; warps <= 32; warps *= 2) {
            for (int lane = 0; lane < 32; lane++) {
                int group = lane / warps;
                boolean[] seen = new boolean[warps];
                for (int other = group * warps; other < (group + 1) * warps; other++) {
                    seen[other & (warps - 1)] = true;
                }
                for (boolean s : seen) {
                    assertTrue(s, warps + " warps, lane " + lane);
                }
            }
        }
    }
}
