package dev.kevo.task.op;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.Dtype;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * masked_softmax's CPU reference held to its definition written out element by element (scale after nothing, mask
 * added after the scale, causal aligned to the bottom right, fully masked rows 0), and the operator as kevo finds it:
 * its tensors, scalar, mask kinds and what its floor counts.
 */
class MaskedSoftmaxTest {
    private static final Operator OP = Operators.byId("masked_softmax");
    private static final float INF = Float.NEGATIVE_INFINITY;
    private static final float LOWEST = -Float.MAX_VALUE;


    /** softmax over the given scores of one row, in float64, the -inf ones 0 and a row of only -inf all 0. */
    private static double[] softmaxOf(double[] scores) {
        double max = INF;
        for (double s : scores) {
            max = Math.max(max, s);
        }
        double[] out = new double[scores.length];
        if (max == INF) {
            return out;
        }
        double sum = 0;
        for (double s : scores) {
            sum += s == INF ? 0 : Math.exp(s - max);
        }
        for (int c = 0; c < scores.length; c++) {
            out[c] = scores[c] == INF ? 0 : Math.exp(scores[c] - max) / sum;
        }
        return out;
    }

    private static double[] row(double[] y, int r, int cols) {
        return java.util.Arrays.copyOfRange(y, r * cols, (r + 1) * cols);
    }

    private static void assertRow(double[] want, double[] got, String what) {
        assertEquals(want.length, got.length);
        for (int c = 0; c < want.length; c++) {
            if (want[c] == 0) {
                assertEquals(0.0, got[c], what + " column " + c + ": masked, exactly 0");
            } else {
                assertEquals(want[c], got[c], 1e-12 * want[c], what + " column " + c);
            }
        }
    }

    @Test
    void isKnownByItsIdWithItsTensorsScalarAndMaskKinds() {
        assertSame(Operators.MASKED_SOFTMAX, OP);
        assertSame(OP, Task.of(EvalSettings.builder().op("masked_softmax").build()).op());
        assertEquals(List.of("x", "lengths", "mask", "y"), OP.tensors().stream().map(Tensor::name).toList());
        assertEquals("x", OP.input().name());
        assertEquals("y", OP.output().name());
        assertEquals(List.of("lengths", "mask"), OP.extraInputs().stream().map(Tensor::name).toList());
        assertEquals(List.of(MaskKind.values()), OP.maskKinds());
        assertEquals(Shape.ATTENTION_VARIABLES, OP.planVariables());
        assertTrue(OP.vendor().isEmpty(), "no vendor library has it");
        assertEquals("masked_softmax_two_pass", OP.ownBaseline());
        assertEquals(List.of(Task.SCALE), OP.scalars().stream().map(Scalar::name).toList());
        // 1/sqrt(d) for the head dimensions of common models: every value below 1, so the scaled lowest float is finite
        assertTrue(OP.scalars().getFirst().values().stream().allMatch(v -> v > 0.06f && v <= 0.125f),
                OP.scalars().getFirst().values()::toString);
        assertEquals(Tolerance.defaults(), OP.tolerance(), "softmax's tolerance (docs/measurement.md)");
    }

    /** The scale is drawn per case seed: the same seed the same value, and every value drawn over a few seeds. */
    @Test
    void theScaleIsDrawnPerCaseSeed() {
        Task task = new Task(OP, Precision.FP32);
        Set<Float> seen = new HashSet<>();
        for (long seed = 0; seed < 200; seed++) {
            assertEquals(task.scale(seed), task.scale(seed));
            seen.add(task.scale(seed));
        }
        assertEquals(Set.copyOf(OP.scalars().getFirst().values()), seen);
        assertEquals(1f, Task.softmax(Precision.FP32).scale(7), "an operator without a scale: 1");
    }

    /** The floor counts the kind's own tensor: the lengths under padding, the mask (broadcast over heads) under additive. */
    @Test
    void theFloorCountsTheBytesOfTheShapesMaskKind() {
        Shape base = Shape.parse("2x4x8x16");
        long e = base.elements();
        Task fp32 = new Task(OP, Precision.FP32);
        assertEquals(8 * e, fp32.floorBytes(base));
        assertEquals(8 * e, fp32.floorBytes(base.withMask(MaskKind.CAUSAL)), "causal reads no tensor");
        assertEquals(8 * e + 2 * 4, fp32.floorBytes(base.withMask(MaskKind.PADDING)), "an int32 a batch entry");
        assertEquals(8 * e + 2 * 8 * 16 * 4, fp32.floorBytes(base.withMask(MaskKind.ADDITIVE)), "[batch, queries, keys]");
        Task bf16 = new Task(OP, Precision.BF16);
        assertEquals(4 * e + 2 * 8 * 16 * 2, bf16.floorBytes(base.withMask(MaskKind.ADDITIVE)), "the mask in x's type");
        Task mixed = new Task(OP, Precision.BF16_FP32);
        assertEquals(6 * e + 2 * 4, mixed.floorBytes(base.withMask(MaskKind.PADDING)));
        // the copy kernel moves that many bytes, in elements of x's and y's types
        assertEquals(e, fp32.floorCopyElements(base));
        assertEquals(e + (2 * 8 * 16 * 4 + 7) / 8, fp32.floorCopyElements(base.withMask(MaskKind.ADDITIVE)));
        // a softmax moves what it always did
        assertEquals(8 * e, Task.softmax(Precision.FP32).floorBytes(new Shape(64, 16)));
        assertEquals(64 * 16, Task.softmax(Precision.FP32).floorCopyElements(new Shape(64, 16)));
    }

    /**
     * What a correct kernel must move, whatever the values: y, and x where nothing can spare it, the keys a causal row
     * sees, the lengths, the mask. The floor's copy moves more; an honest kernel may beat it by that much.
     */
    @Test
    void theLeastBytesAreWhatNoMaskSpares() {
        Shape base = Shape.parse("2x4x8x16");
        long e = base.elements();
        Task fp32 = new Task(OP, Precision.FP32);
        assertEquals(fp32.floorBytes(base), fp32.leastBytes(base), "nothing masked: every byte");
        assertEquals(4 * e + 4 * MaskedSoftmax.causalVisible(base.withMask(MaskKind.CAUSAL)),
                fp32.leastBytes(base.withMask(MaskKind.CAUSAL)));
        assertEquals(4 * e + 2 * 4, fp32.leastBytes(base.withMask(MaskKind.PADDING)), "a length of 0 spares every key");
        assertEquals(4 * e + 2 * 8 * 16 * 4, fp32.leastBytes(base.withMask(MaskKind.ADDITIVE)));
        assertEquals(Task.softmax(Precision.FP32).floorBytes(base), Task.softmax(Precision.FP32).leastBytes(base));
    }

    @ParameterizedTest
    @CsvSource({"1, 1, 4, 4", "2, 3, 4, 9", "1, 2, 9, 4", "3, 1, 1, 7", "1, 1, 7, 1", "2, 2, 16, 16"})
    void theCausalCountIsTheSumOfEachQuerysVisibleKeys(int batch, int heads, int queries, int keys) {
        Shape shape = Shape.attention(batch, heads, queries, keys, MaskKind.CAUSAL);
        long direct = 0;
        for (int q = 0; q < queries; q++) {
            direct += Math.max(0, Math.min(keys, q + keys - queries + 1));
        }
        assertEquals(direct * batch * heads, MaskedSoftmax.causalVisible(shape));
    }

    /** Nothing masked: softmax of the scores scaled and rounded to float, as a float32 kernel holds them. */
    @Test
    void withoutAMaskItIsTheSoftmaxOfTheScaledScores() {
        int rows = 5;
        int cols = 33;
        float[] x = RandomRows.normal(rows * cols, 20, 1);
        float scale = 0.125f;
        double[] y = OP.reference(new ReferenceInputs(new Shape(rows, cols), Dtype.FP32, x, null, null, scale));
        float[] scaled = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            scaled[i] = scale * x[i];
        }
        assertArrayEquals(Operators.SOFTMAX.reference(scaled, rows, cols), y, 1e-15);
        assertArrayEquals(Operators.SOFTMAX.reference(x, rows, cols), OP.reference(x, rows, cols), 1e-15,
                "a plain shape at scale 1 is softmax");
    }

    /** Query q sees keys c <= q + keys - queries: with fewer queries than keys the last query sees every key. */
    @Test
    void causalIsAlignedToTheBottomRight() {
        Shape shape = Shape.attention(1, 2, 3, 5, MaskKind.CAUSAL);
        float[] x = RandomRows.normal((int) shape.elements(), 2, 2);
        double[] y = OP.reference(new ReferenceInputs(shape, Dtype.FP32, x, null, null, 0.5f));
        for (int r = 0; r < shape.rows(); r++) {
            int q = r % 3;
            double[] scores = new double[5];
            for (int c = 0; c < 5; c++) {
                scores[c] = c <= q + 2 ? (float) (0.5f * (double) x[r * 5 + c]) : INF;
            }
            assertRow(softmaxOf(scores), row(y, r, 5), "row " + r);
        }
        // top-left alignment (c <= q) would leave query 0 one key; bottom-right leaves it three
        assertEquals(3, java.util.Arrays.stream(row(y, 0, 5)).filter(v -> v > 0).count());
        assertEquals(5, java.util.Arrays.stream(row(y, 2, 5)).filter(v -> v > 0).count(), "the last query sees all");
    }

    /** With more queries than keys the first queries - keys rows of each head see no key and write 0. */
    @Test
    void causalWithMoreQueriesThanKeysLeavesTheFirstRowsOfEveryHeadFullyMasked() {
        Shape shape = Shape.attention(1, 2, 5, 3, MaskKind.CAUSAL);
        float[] x = RandomRows.normal((int) shape.elements(), 4, 3);
        double[] y = OP.reference(new ReferenceInputs(shape, Dtype.FP32, x, null, null, 0.125f));
        for (int head = 0; head < 2; head++) {
            for (int q = 0; q < 5; q++) {
                double[] got = row(y, head * 5 + q, 3);
                if (q < 2) {
                    assertArrayEquals(new double[3], got, 0, "fully masked: 0, not NaN, not 1/keys");
                } else if (q == 2) {
                    assertArrayEquals(new double[] {1, 0, 0}, got, 0, "masked all but one: that key takes all");
                } else {
                    assertEquals(1.0, java.util.Arrays.stream(got).sum(), 1e-12);
                }
            }
        }
    }

    /** Keys at or past a batch entry's length are masked; a length of 0 masks every row of the entry. */
    @Test
    void paddingMasksKeysPastEachBatchEntrysLength() {
        Shape shape = Shape.attention(3, 2, 2, 4, MaskKind.PADDING);
        float[] x = RandomRows.normal((int) shape.elements(), 4, 4);
        int[] lengths = {0, 1, 4};
        double[] y = OP.reference(new ReferenceInputs(shape, Dtype.FP32, x, lengths, null, 0.1f));
        for (int r = 0; r < shape.rows(); r++) {
            int b = r / 4;
            double[] scores = new double[4];
            for (int c = 0; c < 4; c++) {
                scores[c] = c < lengths[b] ? (float) (0.1f * (double) x[r * 4 + c]) : INF;
            }
            assertRow(softmaxOf(scores), row(y, r, 4), "row " + r + " of batch entry " + b);
        }
        assertArrayEquals(new double[4], row(y, 3, 4), 0, "length 0: fully masked, 0");
        assertArrayEquals(new double[] {1, 0, 0, 0}, row(y, 5, 4), 0, "length 1: masked all but one");
    }

    /**
     * The additive mask is added after the scale, broadcast over heads; its lowest-value and -inf entries mask, and a
     * row of them writes 0 (not 1/keys, which a mask taken as a bias gives).
     */
    @Test
    void theAdditiveMaskIsABiasAfterTheScaleAndItsLowestEntriesMask() {
        Shape shape = Shape.attention(2, 3, 2, 4, MaskKind.ADDITIVE);
        float[] x = RandomRows.normal((int) shape.elements(), 8, 5);
        float[] mask = {
            1.5f, -2f, LOWEST, 0,          // b0 q0
            LOWEST, LOWEST, LOWEST, LOWEST, // b0 q1: fully masked
            INF, 3f, LOWEST, LOWEST,       // b1 q0: masked all but one
            -7f, 0.25f, 11f, -1f};         // b1 q1: biases only
        float scale = 0.0884f;
        double[] y = OP.reference(new ReferenceInputs(shape, Dtype.FP32, x, null, mask, scale));
        for (int r = 0; r < shape.rows(); r++) {
            int q = r % 2;
            int b = r / 2 / 3;
            double[] scores = new double[4];
            for (int c = 0; c < 4; c++) {
                float m = mask[(b * 2 + q) * 4 + c];
                scores[c] = m == LOWEST || m == INF ? INF : (float) ((double) scale * x[r * 4 + c] + m);
            }
            assertRow(softmaxOf(scores), row(y, r, 4), "row " + r);
        }
        assertArrayEquals(new double[4], row(y, 1, 4), 0, "head 0's fully masked row");
        assertArrayEquals(new double[4], row(y, 3, 4), 0, "the same mask row for head 1");
        assertArrayEquals(new double[] {0, 1, 0, 0}, row(y, 6, 4), 0, "masked all but one");
        // the bias after the scale, not scaled with the scores: scale * (x + m) is another answer
        double[] scaledBias = softmaxOf(new double[] {scale * (x[7 * 4] - 7.0), scale * (x[7 * 4 + 1] + 0.25),
                scale * (x[7 * 4 + 2] + 11.0), scale * (x[7 * 4 + 3] - 1.0)});
        assertTrue(Math.abs(scaledBias[2] - row(y, 7, 4)[2]) > 0.1, "a bias of 11 weighs far more unscaled");
    }

    /**
     * The lowest value masks in x's own type: a row of bf16's lowest is fully masked in bf16 (0), and in float32, where
     * it is not float's lowest, a huge bias that leaves the row flat; fp16's -65504 likewise.
     */
    @Test
    void theMaskingValueIsTheLowestOfXsType() {
        Shape shape = Shape.attention(1, 1, 1, 3, MaskKind.ADDITIVE);
        float[] x = {1, 2, 3};
        float bf16Lowest = Float.intBitsToFloat(0xFF7F0000);
        float[] bf16Row = {bf16Lowest, bf16Lowest, bf16Lowest};
        assertArrayEquals(new double[3], OP.reference(new ReferenceInputs(shape, Dtype.BF16, x, null, bf16Row, 1f)), 0);
        double[] asBias = OP.reference(new ReferenceInputs(shape, Dtype.FP32, x, null, bf16Row, 1f));
        assertArrayEquals(new double[] {1 / 3.0, 1 / 3.0, 1 / 3.0}, asBias, 1e-15, "x is below float's resolution there");
        float[] fp16Row = {-65504f, -65504f, 0};
        assertArrayEquals(new double[] {0, 0, 1}, OP.reference(new ReferenceInputs(shape, Dtype.FP16, x, null, fp16Row,
                1f)), 0);
        double[] fp32 = OP.reference(new ReferenceInputs(shape, Dtype.FP32, x, null, new float[] {-65504f, -65504f,
                -65504f}, 1f));
        assertArrayEquals(softmaxOf(new double[] {1, 2, 3}), fp32, 1e-12, "in float32 -65504 is a bias like any other");
    }

    /**
     * x at the lowest float is a score, not a mask: scaled it stays finite, and a bias is below float's resolution
     * there, so the row is flat, as every float32 kernel sees it (float64 alone would tell the biases apart).
     */
    @Test
    void aRowOfLowestScoresIsFlatWhateverItsBiases() {
        Shape shape = Shape.attention(1, 1, 1, 4, MaskKind.ADDITIVE);
        float[] x = {LOWEST, LOWEST, LOWEST, LOWEST};
        double[] y = OP.reference(new ReferenceInputs(shape, Dtype.FP32, x, null, new float[] {3, -2, 0, LOWEST},
                0.125f));
        assertArrayEquals(new double[] {1 / 3.0, 1 / 3.0, 1 / 3.0, 0}, y, 1e-15);
        double[] none = OP.reference(new ReferenceInputs(new Shape(1, 4), Dtype.FP32, x, null, null, 0.125f));
        assertArrayEquals(new double[] {0.25, 0.25, 0.25, 0.25}, none, 1e-15);
    }

    /** Scores all -inf (x itself masked throughout) have no answer in torch.softmax; SDPA's safe softmax writes 0. */
    @Test
    void aRowWithNoFiniteScoreWritesZero() {
        double[] y = OP.reference(ReferenceInputs.of(new float[] {INF, INF, INF, 1, INF, 2}, 2, 3));
        assertArrayEquals(new double[] {0, 0, 0}, row(y, 0, 3), 0);
        assertEquals(1.0, row(y, 1, 3)[0] + row(y, 1, 3)[2], 1e-15);
    }

    /** Softmax and log_softmax take no mask: a suite of masked shapes is an input error for them, not for this. */
    @Test
    void onlyAnOperatorThatTakesAMaskJudgesMaskedShapes() {
        List<Shape> shapes = List.of(Shape.parse("2x4x8x16"), Shape.parse("2x4x8x16:causal"));
        new Task(OP, Precision.FP32).checkSuite("attention", shapes);
        KevoException e = assertThrows(KevoException.class,
                () -> Task.softmax(Precision.FP32).checkSuite("attention", shapes));
        assertEquals("suite attention: shape 2x4x8x16:causal: softmax takes no causal mask (its mask kinds: none)",
                e.getMessage());
        assertEquals(KevoException.Kind.INPUT, e.kind());
        Task.softmax(Precision.FP32).checkSuite("attention", shapes.subList(0, 1));
    }
}
