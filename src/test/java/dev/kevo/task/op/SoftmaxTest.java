package dev.kevo.task.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SoftmaxTest {


    private static double rowSum(double[] y, int row, int cols) {
        double sum = 0;
        for (int c = 0; c < cols; c++) {
            sum += y[row * cols + c];
        }
        return sum;
    }

    @Test
    void handComputedValues() {
        float[] x = {0, (float) Math.log(3), 5, 5};
        double[] y = Operators.SOFTMAX.reference(x, 2, 2);
        assertEquals(0.25, y[0], 1e-7);
        assertEquals(0.75, y[1], 1e-7);
        assertEquals(0.5, y[2], 0);
        assertEquals(0.5, y[3], 0);
    }

    @Test
    void rowsSumToOneAndAreIndependent() {
        int rows = 7;
        int cols = 301;
        float[] x = RandomRows.normal(rows * cols, 4, 1);
        double[] y = Operators.SOFTMAX.reference(x, rows, cols);
        for (int r = 0; r < rows; r++) {
            assertEquals(1.0, rowSum(y, r, cols), 1e-12, "row " + r);
        }
        // changing row 3 leaves the others alone
        float[] changed = x.clone();
        changed[3 * cols + 5] += 10;
        double[] y2 = Operators.SOFTMAX.reference(changed, rows, cols);
        for (int i = 0; i < x.length; i++) {
            if (i / cols != 3) {
                assertEquals(y[i], y2[i], 0, "element " + i);
            }
        }
        assertTrue(y2[3 * cols + 5] > y[3 * cols + 5]);
    }

    @Test
    void invariantToAddingAConstantToARow() {
        int rows = 3;
        int cols = 64;
        float[] x = RandomRows.normal(rows * cols, 1, 2);
        float[] shifted = x.clone();
        for (int c = 0; c < cols; c++) {
            shifted[cols + c] += 16f;  // exact in float for these magnitudes
        }
        double[] y = Operators.SOFTMAX.reference(x, rows, cols);
        double[] ys = Operators.SOFTMAX.reference(shifted, rows, cols);
        for (int i = 0; i < y.length; i++) {
            assertEquals(y[i], ys[i], 1e-12 + 1e-6 * y[i], "element " + i);
        }
    }

    @Test
    void negativeInfinityGivesExactZero() {
        float inf = Float.NEGATIVE_INFINITY;
        float[] x = {inf, 1, inf, 2, inf, inf, inf, -700};
        double[] y = Operators.SOFTMAX.reference(x, 2, 4);
        assertEquals(0.0, y[0]);
        assertEquals(0.0, y[2]);
        assertEquals(1.0, y[1] + y[3], 1e-15);
        assertEquals(Math.exp(1) / (Math.exp(1) + Math.exp(2)), y[1], 1e-15);
        // a single finite entry takes everything
        assertEquals(0.0, y[4]);
        assertEquals(0.0, y[5]);
        assertEquals(0.0, y[6]);
        assertEquals(1.0, y[7]);
    }

    @Test
    void largeMagnitudesStayFinite() {
        int rows = 4;
        int cols = 1000;
        Random random = new Random(3);
        float[] x = new float[rows * cols];
        for (int i = 0; i < x.length; i++) {
            float u = 500 + 500 * random.nextFloat();
            x[i] = i < 2 * cols ? u : -u;  // rows 0-1 in [500, 1000], rows 2-3 in [-1000, -500]
        }
        double[] y = Operators.SOFTMAX.reference(x, rows, cols);
        for (int i = 0; i < y.length; i++) {
            assertTrue(Double.isFinite(y[i]) && y[i] >= 0 && y[i] <= 1, "element " + i + " = " + y[i]);
        }
        for (int r = 0; r < rows; r++) {
            assertEquals(1.0, rowSum(y, r, cols), 1e-12);
            int argmax = r * cols;
            for (int c = 0; c < cols; c++) {
                if (x[r * cols + c] > x[argmax]) {
                    argmax = r * cols + c;
                }
            }
            for (int c = 0; c < cols; c++) {
                assertTrue(y[r * cols + c] <= y[argmax]);
            }
        }
    }
}
