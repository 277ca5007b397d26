package dev.kevo.task.op;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.Dtype;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * softmax_backward's and log_softmax_backward's CPU reference against their formulas written out, the contract on
 * masked entries, the inputs as training gives them, and the tolerance against an honest float32 kernel and one that
 * takes dy's mean for the dot product.
 */
class RowDotBackwardTest {
    private static final RowDotBackward SOFTMAX_BW = (RowDotBackward) Operators.byId("softmax_backward");
    private static final RowDotBackward LOG_SOFTMAX_BW = (RowDotBackward) Operators.byId("log_softmax_backward");
    private static final float INF = Float.NEGATIVE_INFINITY;

    /** x of the forward: normal rows with scattered -inf, one finite entry guaranteed, and one row fully one value. */
    private static float[] forwardInput(int rows, int cols, long seed) {
        Random random = new Random(seed);
        float[] x = new float[rows * cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                x[r * cols + c] = c > 0 && random.nextDouble() < 0.3 ? INF : (float) (4 * random.nextGaussian());
            }
        }
        Arrays.fill(x, 0, cols, 7f);
        return x;
    }

    @Test
    void softmaxBackwardIsItsFormula() {
        int rows = 8;
        int cols = 37;
        BackwardInputs in = BackwardInputs.of(SOFTMAX_BW, Dtype.FP32, forwardInput(rows, cols, 1), rows, cols, 5);
        double[] dx = SOFTMAX_BW.reference(in.y(), in.dy(), rows, cols);
        for (int r = 0; r < rows; r++) {
            double dot = 0;
            for (int c = 0; c < cols; c++) {
                dot += (double) in.y()[r * cols + c] * in.dy()[r * cols + c];
            }
            for (int c = 0; c < cols; c++) {
                int i = r * cols + c;
                assertEquals(in.y()[i] * (in.dy()[i] - dot), dx[i], 1e-15, "element (" + r + ", " + c + ")");
            }
        }
    }

    @Test
    void logSoftmaxBackwardIsItsFormula() {
        int rows = 8;
        int cols = 37;
        BackwardInputs in = BackwardInputs.of(LOG_SOFTMAX_BW, Dtype.FP32, forwardInput(rows, cols, 2), rows, cols, 5);
        double[] dx = LOG_SOFTMAX_BW.reference(in.y(), in.dy(), rows, cols);
        for (int r = 0; r < rows; r++) {
            double sum = 0;
            for (int c = 0; c < cols; c++) {
                sum += in.dy()[r * cols + c];
            }
            for (int c = 0; c < cols; c++) {
                int i = r * cols + c;
                assertEquals(in.dy()[i] - Math.exp(in.y()[i]) * sum, dx[i], 1e-15, "element (" + r + ", " + c + ")");
            }
        }
    }

    /**
     * The contract on masked entries (x = -inf): softmax's y is 0 there and dx exactly 0; log_softmax's y is -inf and
     * dx exactly dy (torch's answer: exp(-inf) = 0), on rows whose dy is non-zero there.
     */
    @Test
    void maskedEntriesGiveExactAnswers() {
        int rows = 8;
        int cols = 64;
        float[] x = forwardInput(rows, cols, 3);
        BackwardInputs soft = BackwardInputs.of(SOFTMAX_BW, Dtype.FP32, x, rows, cols, 9);
        BackwardInputs log = BackwardInputs.of(LOG_SOFTMAX_BW, Dtype.FP32, x, rows, cols, 9);
        double[] softDx = SOFTMAX_BW.reference(soft.y(), soft.dy(), rows, cols);
        double[] logDx = LOG_SOFTMAX_BW.reference(log.y(), log.dy(), rows, cols);
        int masked = 0;
        int maskedWithGradient = 0;
        for (int i = 0; i < x.length; i++) {
            if (x[i] == INF) {
                masked++;
                assertEquals(0f, soft.y()[i]);
                assertEquals(0.0, Math.abs(softDx[i]), "softmax_backward at masked " + i);
                assertEquals(INF, log.y()[i]);
                assertEquals(log.dy()[i], logDx[i], 0.0, "log_softmax_backward at masked " + i);
                maskedWithGradient += log.dy()[i] != 0 ? 1 : 0;
            }
        }
        assertTrue(masked > 20 && maskedWithGradient > 5, masked + " masked, " + maskedWithGradient + " with dy");
    }

    /** y is the forward's answer rounded to x's type, and each row's dy is of its kind. */
    @Test
    void inputsAreConsistentAsTrainingGivesThem() {
        int rows = 8;
        int cols = 50;
        float[] x = forwardInput(rows, cols, 4);
        double[] p = Operators.SOFTMAX.reference(x, rows, cols);
        BackwardInputs in = BackwardInputs.of(SOFTMAX_BW, Dtype.BF16, x, rows, cols, 11);
        for (int i = 0; i < x.length; i++) {
            assertEquals(BackwardInputs.round(Dtype.BF16, (float) p[i]), in.y()[i]);
            assertEquals(0, Float.floatToRawIntBits(in.y()[i]) & 0xFFFF, "y in bf16 at " + i);
            assertEquals(0, Float.floatToRawIntBits(in.dy()[i]) & 0xFFFF, "dy in bf16 at " + i);
        }
        for (int r = 0; r < rows; r++) {
            float[] dy = Arrays.copyOfRange(in.dy(), r * cols, (r + 1) * cols);
            long zeros = count(dy, 0f);
            switch (BackwardInputs.kind(r)) {
                case NORMAL -> assertTrue(zeros <= 1, "normal row " + r);
                case SPARSE -> assertTrue(zeros >= cols / 2 && zeros < cols, "sparse row " + r + ": " + zeros);
                case LOSS -> {
                    double sum = 0;
                    for (float v : dy) {
                        sum += v;
                    }
                    assertEquals(0, sum, 0.05, "p - onehot sums to about 0 on row " + r);
                    assertEquals(1, count(dy, v -> v < -0.5), "one label on row " + r);
                }
                case NLL -> {
                    assertEquals(cols - 1, zeros, "one non-zero on row " + r);
                    int label = indexOfNonZero(dy);
                    assertTrue(x[r * cols + label] != INF, "a label on a masked entry, row " + r);
                    assertEquals(BackwardInputs.round(Dtype.BF16, -1f / rows), dy[label]);
                }
            }
        }
    }

    /**
     * An honest float32 kernel (dot product summed in float32, the element's arithmetic in float32) passes the
     * tolerance with room; one that uses dy's mean instead of the dot product (softmax_backward) or forgets exp
     * (log_softmax_backward) fails per element and per case.
     */
    @Test
    void toleranceTakesFloat32AndRejectsTheWrongStatistic() {
        int rows = 16;
        int cols = 4096;
        float[] x = forwardInput(rows, cols, 6);
        for (RowDotBackward op : new RowDotBackward[] {SOFTMAX_BW, LOG_SOFTMAX_BW}) {
            BackwardInputs in = BackwardInputs.of(op, Dtype.FP32, x, rows, cols, 13);
            double[] ref = op.reference(in.y(), in.dy(), rows, cols);
            double[] scale = op.scale(in.y(), in.dy(), rows, cols);
            double[] honest = new double[ref.length];
            double[] wrong = new double[ref.length];
            for (int r = 0; r < rows; r++) {
                float dot = 0;
                float mean = 0;
                for (int c = 0; c < cols; c++) {
                    int i = r * cols + c;
                    dot += (float) op.term(in.y()[i], in.dy()[i]);
                    mean += in.dy()[i] / cols;
                }
                for (int c = 0; c < cols; c++) {
                    int i = r * cols + c;
                    float y = in.y()[i];
                    float dy = in.dy()[i];
                    honest[i] = op == SOFTMAX_BW ? y * (dy - dot) : dy - (float) Math.exp(y) * dot;
                    wrong[i] = op == SOFTMAX_BW ? y * (dy - mean) : dy - y * dot;
                }
            }
            assertTrue(worst(honest, ref, scale) < 0.1 * op.tolerance().absolute(), op.id() + " honest: "
                    + worst(honest, ref, scale));
            assertTrue(caseError(honest, ref, scale) < 0.1 * op.tolerance().relativeL2(), op.id());
            assertTrue(worst(wrong, ref, scale) > 10 * op.tolerance().absolute(), op.id() + " wrong: "
                    + worst(wrong, ref, scale));
            assertTrue(caseError(wrong, ref, scale) > 10 * op.tolerance().relativeL2(), op.id());
        }
    }

    /**
     * What the evaluator is driven by: each is the gradient of its forward, whose x and statistics its inputs derive
     * from, and reads two row inputs in the harness's order (y, then dy); cuDNN's backward of the forward's algorithm is
     * its vendor baseline, which serves one dtype for every tensor and so not bf16-fp32.
     */
    @Test
    void isTheGradientOfItsForwardWithTwoRowInputsAndCudnnsBackward() {
        assertEquals(java.util.Optional.of(Operators.SOFTMAX), SOFTMAX_BW.gradientOf());
        assertEquals(java.util.Optional.of(Operators.LOG_SOFTMAX), LOG_SOFTMAX_BW.gradientOf());
        assertEquals(VendorBaseline.CUDNN_SOFTMAX_BACKWARD_ACCURATE, SOFTMAX_BW.vendor().orElseThrow());
        assertEquals(VendorBaseline.CUDNN_SOFTMAX_BACKWARD_LOG, LOG_SOFTMAX_BW.vendor().orElseThrow());
        for (RowDotBackward op : new RowDotBackward[] {SOFTMAX_BW, LOG_SOFTMAX_BW}) {
            assertEquals(java.util.List.of("y", "dy"), op.rowInputs().stream().map(Tensor::name).toList(), op.id());
            assertTrue(op.extraInputs().isEmpty(), op.id());
            assertThrows(IllegalStateException.class, op::input, "two row inputs, not one x");
            assertTrue(new Task(op, Precision.FP32).vendorCannotServe().isEmpty(), op.id());
            assertTrue(new Task(op, Precision.BF16).vendorCannotServe().isEmpty(), op.id());
            assertTrue(new Task(op, Precision.BF16_FP32).vendorCannotServe().isPresent(), op.id());
        }
    }

    /** The forward operators are no gradient, and their one row input is x, as the harness always read it. */
    @Test
    void forwardOperatorsReadOneRowInputAndAreNoGradient() {
        for (Operator op : new Operator[] {Operators.SOFTMAX, Operators.LOG_SOFTMAX, Operators.MASKED_SOFTMAX}) {
            assertTrue(op.gradientOf().isEmpty(), op.id());
            assertEquals(java.util.List.of(op.input()), op.rowInputs(), op.id());
        }
    }

    /** Two reads and a write: y and dy in x's type, dx in y's; bf16-fp32 reads 16-bit y and dy and writes float. */
    @Test
    void floorIsTwoReadsAndAWrite() {
        Shape shape = new Shape(4096, 4096);
        for (Operator op : new Operator[] {SOFTMAX_BW, LOG_SOFTMAX_BW}) {
            assertEquals(3L * 4 * shape.elements(), op.floorBytes(shape, Precision.FP32));
            assertEquals(3L * 2 * shape.elements(), op.floorBytes(shape, Precision.BF16));
            assertEquals((2L * 2 + 4) * shape.elements(), op.floorBytes(shape, Precision.BF16_FP32));
            assertEquals("dx", op.output().name());
            assertTrue(op.referenceSource().contains("#line 1 \"row_dot.cu\""), op.id());
            assertTrue(op.taskText().contains("memory floor"), op.id());
        }
    }

    /**
     * Both are found by id and judged from their shipped configs, which name them (calibrated on torch on the H100:
     * docs/measurement.md); settings of another operator or dtype than an evaluator's task are a programming error.
     */
    @Test
    void isJudgedFromItsShippedConfigsAndOnlyUnderSettingsThatNameIt() {
        assertSame(Operators.SOFTMAX_BACKWARD, SOFTMAX_BW);
        assertSame(Operators.LOG_SOFTMAX_BACKWARD, LOG_SOFTMAX_BW);
        for (Operator op : new Operator[] {SOFTMAX_BW, LOG_SOFTMAX_BW}) {
            EvalSettings shipped = EvalSettings.load(dev.kevo.TestFiles.root().resolve("config/eval-" + op.id() + ".yaml"));
            assertSame(op, Task.of(shipped).op());
        }
        EvalSettings settings = EvalSettings.builder().op("log_softmax_backward").dtype(Precision.BF16).build();
        Task task = new Task(LOG_SOFTMAX_BW, Precision.BF16);
        assertSame(task, task.under(settings));
        assertEquals(task, Task.of(settings));
        assertThrows(IllegalArgumentException.class, () -> new Task(LOG_SOFTMAX_BW, Precision.FP32).under(settings));
        assertThrows(IllegalArgumentException.class, () -> new Task(SOFTMAX_BW, Precision.BF16).under(settings));
    }

    /** The largest per-element error in units of the element's scale. */
    private static double worst(double[] got, double[] ref, double[] scale) {
        double worst = 0;
        for (int i = 0; i < ref.length; i++) {
            worst = Math.max(worst, Math.abs(got[i] - ref[i]) / Math.max(scale[i], Double.MIN_NORMAL));
        }
        return worst;
    }

    /** ||got - ref|| / ||scale||: the case's error relative to dy's scale. */
    private static double caseError(double[] got, double[] ref, double[] scale) {
        double err = 0;
        double norm = 0;
        for (int i = 0; i < ref.length; i++) {
            err += (got[i] - ref[i]) * (got[i] - ref[i]);
            norm += scale[i] * scale[i];
        }
        return Math.sqrt(err / norm);
    }

    private static long count(float[] row, float value) {
        return count(row, v -> v == value);
    }

    private static long count(float[] row, java.util.function.DoublePredicate which) {
        long n = 0;
        for (float v : row) {
            n += which.test(v) ? 1 : 0;
        }
        return n;
    }

    private static int indexOfNonZero(float[] row) {
        for (int c = 0; c < row.length; c++) {
            if (row[c] != 0) {
                return c;
            }
        }
        return -1;
    }
}
