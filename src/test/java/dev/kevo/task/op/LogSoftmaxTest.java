package dev.kevo.task.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** log_softmax's CPU reference, held to a direct float64 computation, and the operator as kevo finds it. */
class LogSoftmaxTest {
    private static final Operator LOG_SOFTMAX = Operators.byId("log_softmax");
    private static final float INF = Float.NEGATIVE_INFINITY;
    private static final float LOWEST = -Float.MAX_VALUE;

    /** log(exp(x_c) / sum exp(x)) written out as its definition, with the maximum taken out (BigDecimal-free). */
    private static double direct(float[] row, int c) {
        double max = Double.NEGATIVE_INFINITY;
        for (float v : row) {
            max = Math.max(max, v);
        }
        double sum = 0;
        for (float v : row) {
            sum += v == INF ? 0 : Math.exp((double) v - max);
        }
        return ((double) row[c] - max) - Math.log(sum);
    }

    private static void assertMatchesDirect(float[] x, int rows, int cols) {
        double[] y = LOG_SOFTMAX.reference(x, rows, cols);
        for (int r = 0; r < rows; r++) {
            float[] row = java.util.Arrays.copyOfRange(x, r * cols, (r + 1) * cols);
            for (int c = 0; c < cols; c++) {
                double want = direct(row, c);
                double got = y[r * cols + c];
                if (Double.isInfinite(want)) {
                    assertEquals(want, got, "element (" + r + ", " + c + ")");
                } else {
                    assertEquals(want, got, 1e-12 * Math.max(1, Math.abs(want)), "element (" + r + ", " + c + ")");
                }
            }
        }
    }

    @Test
    void isKnownByItsIdBesideSoftmax() {
        assertSame(Operators.LOG_SOFTMAX, LOG_SOFTMAX);
        assertTrue(Operators.ids().contains("log_softmax") && Operators.ids().contains("softmax"), Operators.ids());
        assertSame(LOG_SOFTMAX, Task.of(EvalSettings.builder().op("log_softmax").build()).op());
        assertEquals("x", LOG_SOFTMAX.input().name());
        assertEquals("y", LOG_SOFTMAX.output().name());
        assertEquals(VendorBaseline.CUDNN_SOFTMAX_LOG, LOG_SOFTMAX.vendor().orElseThrow());
        assertEquals("log_softmax_two_pass", LOG_SOFTMAX.ownBaseline());
    }

    /** Softmax's inputs, every one of them: masks, huge and tiny magnitudes and flat rows all matter to a log too. */
    @Test
    void isCheckedOnEveryInputCaseAndMovesWhatSoftmaxMoves() {
        assertEquals(List.of(InputCase.values()), LOG_SOFTMAX.inputCases());
        Shape shape = new Shape(4096, 12288);
        for (Precision dtype : Precision.SUPPORTED) {
            assertEquals(Task.softmax(dtype).floorBytes(shape), new Task(LOG_SOFTMAX, dtype).floorBytes(shape));
        }
    }

    @Test
    void handComputedValues() {
        float[] x = {0, (float) Math.log(3), 5, 5};
        double[] y = LOG_SOFTMAX.reference(x, 2, 2);
        assertEquals(Math.log(0.25), y[0], 1e-7);  // log(3) rounded to float
        assertEquals(Math.log(0.75), y[1], 1e-7);  // log(3) rounded to float
        assertEquals(-Math.log(2), y[2], 0);
        assertEquals(-Math.log(2), y[3], 0);
    }

    @Test
    void agreesWithTheDefinitionOnRowsWithMaskedEntries() {
        float[] x = {INF, 1, INF, 2, INF, INF, INF, -700, 3, INF, -1, INF};
        assertMatchesDirect(x, 3, 4);
        double[] y = LOG_SOFTMAX.reference(x, 3, 4);
        assertEquals(Double.NEGATIVE_INFINITY, y[0], "a masked entry's log-probability is -inf");
        assertEquals(0.0, y[7], "a row's one finite entry takes everything: log 1");
        assertEquals(Double.NEGATIVE_INFINITY, y[4]);
    }

    /**
     * Hugging Face's mask, the lowest finite float: masked entries get a finite log-probability near -3.4e38, and a
     * row masked throughout is flat, -log(cols) everywhere (not NaN: the maximum is finite).
     */
    @Test
    void agreesWithTheDefinitionOnRowsMaskedWithTheLowestFloat() {
        int cols = 6;
        float[] x = {2, -1, LOWEST, LOWEST, LOWEST, LOWEST,
            LOWEST, LOWEST, LOWEST, LOWEST, LOWEST, LOWEST};
        assertMatchesDirect(x, 2, cols);
        double[] y = LOG_SOFTMAX.reference(x, 2, cols);
        assertEquals(LOWEST - 2 - Math.log(1 + Math.exp(-3)), y[2], Math.ulp(y[2]));
        for (int c = 0; c < cols; c++) {
            assertEquals(-Math.log(cols), y[cols + c], 0, "column " + c + " of the fully masked row");
        }
    }

    /** A row with nothing finite has no answer; the reference says NaN, as torch.log_softmax does, and no case makes one. */
    @Test
    void aRowOfOnlyNegativeInfinityIsNotANumber() {
        double[] y = LOG_SOFTMAX.reference(new float[] {INF, INF, INF}, 1, 3);
        for (double v : y) {
            assertTrue(Double.isNaN(v), "got " + v);
        }
    }

    @Test
    void agreesWithTheDefinitionOnLargeMagnitudesAndIsTheLogOfSoftmaxWhereThatIsFinite() {
        int rows = 4;
        int cols = 500;
        Random random = new Random(5);
        float[] x = new float[rows * cols];
        for (int i = 0; i < x.length; i++) {
            float u = 500 + 500 * random.nextFloat();
            x[i] = i < 2 * cols ? u : u * (random.nextBoolean() ? 1 : -1);  // rows 2-3 span 2000: exp underflows
        }
        assertMatchesDirect(x, rows, cols);
        double[] y = LOG_SOFTMAX.reference(x, rows, cols);
        double[] p = Operators.SOFTMAX.reference(x, rows, cols);
        int finiteLogs = 0;
        for (int i = 0; i < x.length; i++) {
            assertTrue(Double.isFinite(y[i]) && y[i] <= 0, "element " + i + " = " + y[i]);
            if (p[i] > 1e-300) {
                assertEquals(Math.log(p[i]), y[i], 1e-12 * Math.max(1, -y[i]), "element " + i);
                finiteLogs++;
            }
        }
        // the log of a probability underflows where the log-probability does not: why the operator exists
        assertTrue(finiteLogs > 0 && finiteLogs < x.length, finiteLogs + " of " + x.length);
    }

    /** The provisional tolerance: 1e-4 absolute near 0, 1e-5 relative for large magnitudes (docs/measurement.md). */
    @Test
    void itsToleranceIsAbsoluteNearZeroAndRelativeForLargeMagnitudes() {
        var t = LOG_SOFTMAX.tolerance();
        assertTrue(t.elementOk(-0.99e-4, 0), "an entry at the maximum of a dominated row");
        assertTrue(!t.elementOk(-2e-4, 0));
        assertTrue(t.elementOk(-1000.005, -1000), "x - max in float32 at 1000");
        assertTrue(!t.elementOk(-1000.02, -1000));
        assertTrue(!t.elementOk(-8.0 + 2e-3, -8.0), "a sum off by 2^-9 (accumulated in bf16)");
        assertEquals(Task.of(EvalSettings.builder().op("log_softmax").build()).tolerance(EvalSettings.defaults()), t);
    }
}
