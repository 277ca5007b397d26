package dev.kevo.task.op;

import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import java.util.List;
import java.util.Set;

/**
 * {@code y = softmax(scale * x + mask)} over each row, the rows laid out as attention lays them out ({@code batch x
 * heads x queries} rows of {@code keys} columns: {@link Shape}), masked as the shape's {@link MaskKind} says: by
 * nothing; causally, from the row's query index, aligned to the bottom right; by a key length per batch entry; or by an
 * additive mask broadcast over heads whose masked entries hold x's type's lowest finite value. A row with no score
 * left (fully masked) writes 0, as PyTorch's SDPA does.
 *
 * <p>The id is {@code masked_softmax}, as torch names its fused op ({@code torch._masked_softmax}): the scale is part of
 * the operator whatever the mask (a scale of 1 is a plain masked softmax), and Megatron's {@code scaled_masked_softmax}
 * names one kernel of a narrower envelope (16-bit, at most 4096 keys), which this operator is not.
 */
final class MaskedSoftmax implements Operator {
    static final String ID = "masked_softmax";

    private static final List<Tensor> TENSORS = List.of(
            new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
            new Tensor("lengths", Tensor.Role.INPUT, Tensor.Element.INT32, Tensor.Extent.BATCH),
            new Tensor("mask", Tensor.Role.INPUT, Tensor.Element.X, Tensor.Extent.BATCH_QUERIES_KEYS),
            new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y));

    /**
     * Attention's scale, 1/sqrt(d) for a head dimension d of common models (64, 80, 96, 128, 256), drawn anew for
     * every input case: a kernel that hard-codes one scale (or none) is wrong on the others, and every value is below
     * 1, so that the scaled lowest float stays finite, as it does in any attention.
     */
    static final Scalar SCALE = new Scalar(Task.SCALE, List.of(headScale(64), headScale(80), headScale(96),
            headScale(128), headScale(256)));

    private static float headScale(int d) {
        return (float) (1 / Math.sqrt(d));
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<Tensor> tensors() {
        return TENSORS;
    }

    @Override
    public List<Scalar> scalars() {
        return List.of(SCALE);
    }

    @Override
    public List<MaskKind> maskKinds() {
        return List.of(MaskKind.values());
    }

    @Override
    public Set<String> planVariables() {
        return Shape.ATTENTION_VARIABLES;
    }

    /**
     * Softmax's (relative L2 1e-4 a case, 1e-6 + 1e-4 |ref| an element): the scores add one or two float32 roundings
     * (scale * x, then the bias), each at most 2^-24 of a score, which moves a probability by |score| 2^-24 relative:
     * 7.5e-6 at the largest scores any case makes (1000 x 0.125), far inside 1e-4 (docs/measurement.md). A masked
     * entry's 0 is held exactly ({@code kv_exact}), so a fully masked row written 1/keys fails at any row length.
     */
    @Override
    public Tolerance tolerance() {
        return Tolerance.defaults();
    }

    @Override
    public String referenceSource() {
        return OperatorText.sources(MaskedSoftmax.class, "row_max_sum.cu", "masked_softmax.cu");
    }

    /** The scale, the mask kinds and exact zeros where masked ({@link #score}'s GPU twin). */
    @Override
    public String scoreSource() {
        return OperatorText.sources(MaskedSoftmax.class, "masked_softmax_scores.cu");
    }

    /** A plain shape, masked by nothing, at scale 1: softmax. */
    @Override
    public double[] reference(float[] x, int rows, int cols) {
        return reference(ReferenceInputs.of(x, rows, cols));
    }

    /**
     * Each score as float32 computes it ({@link #score}), then softmax's row walk in float64, masked scores (-inf) and
     * the whole of a fully masked row giving exactly 0.
     */
    @Override
    public double[] reference(ReferenceInputs in) {
        Shape shape = in.shape();
        float[] scores = new float[in.x().length];
        for (int r = 0; r < shape.rows(); r++) {
            for (int c = 0; c < shape.cols(); c++) {
                scores[r * shape.cols() + c] = score(in, r, c);
            }
        }
        return RowMaxSum.rowwise(scores, shape.rows(), shape.cols(), (v, row) ->
                row.max() == Double.NEGATIVE_INFINITY ? 0 : Math.exp(v - row.max()) / row.sum());
    }

    /**
     * Element (r, c)'s score: -inf where the shape's mask masks it, else {@code scale * x + bias} rounded once to
     * float32, as a float32 kernel holds it (fma(scale, x, bias)). Rounded, because where x is the lowest float the
     * bias is below a float's resolution there: every float32 kernel sees equal scores, which float64 would not.
     */
    static float score(ReferenceInputs in, int r, int c) {
        Shape shape = in.shape();
        int q = r % shape.queries();
        int b = r / shape.queries() / shape.heads();
        float x = in.x()[r * shape.cols() + c];
        double bias = 0;
        switch (shape.mask()) {
            case NONE -> {
            }
            case CAUSAL -> {
                if ((long) c > (long) q + shape.cols() - shape.queries()) {
                    return Float.NEGATIVE_INFINITY;
                }
            }
            case PADDING -> {
                if (c >= in.lengths()[b]) {
                    return Float.NEGATIVE_INFINITY;
                }
            }
            case ADDITIVE -> {
                float m = in.mask()[((b * shape.queries()) + q) * shape.cols() + c];
                if (m == Float.NEGATIVE_INFINITY || m == in.lowest()) {
                    return Float.NEGATIVE_INFINITY;
                }
                bias = m;
            }
        }
        return (float) ((double) in.scale() * x + bias);
    }

    @Override
    public String ownBaseline() {
        return "masked_softmax_two_pass";
    }

    @Override
    public String taskText() {
        return OperatorText.resource(MaskedSoftmax.class, "masked_softmax.md");
    }

    /**
     * What a correct kernel must read at least, whatever the values, beside writing y: x where no mask can spare it
     * (none), the keys a causal row sees, the lengths (a length of 0 spares every key), the additive mask (its masked
     * entries spare x's). The floor counts every byte ({@link #floorBytes}); this bounds how far beyond it a kernel that
     * skips masked reads may honestly go.
     */
    @Override
    public long inputBytes(Shape shape, Precision dtype) {
        return switch (shape.mask()) {
            case NONE -> TENSORS.getFirst().bytes(shape, dtype);
            case CAUSAL -> causalVisible(shape) * dtype.x().bytes();
            case PADDING -> TENSORS.get(1).bytes(shape, dtype);
            case ADDITIVE -> TENSORS.get(2).bytes(shape, dtype);
        };
    }

    /**
     * Elements a causal mask leaves visible: per head, query q sees min(keys, max(0, q + keys - queries + 1)) keys,
     * which rises by one a query to keys at the last; the sum of t over t from keys - queries + 1 (or 1) to keys.
     */
    static long causalVisible(Shape shape) {
        long keys = shape.cols();
        long first = Math.max(1, keys - shape.queries() + 1);
        long perHead = (keys * (keys + 1) - (first - 1) * first) / 2;
        return perHead * shape.batch() * shape.heads();
    }
}
