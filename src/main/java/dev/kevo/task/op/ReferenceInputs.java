package dev.kevo.task.op;

import dev.kevo.data.Dtype;
import dev.kevo.data.Shape;

/**
 * What an operator's CPU reference reads: the shape (its attention layout and mask kind too), x as float values (as
 * stored in {@code xType}, then widened), the key lengths and the additive mask (in x's type, widened) where the
 * shape's kind reads them (else null), and the scale (1 for operators without one).
 */
public record ReferenceInputs(Shape shape, Dtype xType, float[] x, int[] lengths, float[] mask, float scale) {

    /** A plain shape's float32 input: x alone. */
    public static ReferenceInputs of(float[] x, int rows, int cols) {
        return new ReferenceInputs(new Shape(rows, cols), Dtype.FP32, x, null, null, 1f);
    }

    /** The lowest finite value of x's type, widened: what Hugging Face masks with (torch.finfo(dtype).min). */
    public float lowest() {
        return switch (xType) {
            case FP32 -> -Float.MAX_VALUE;
            case BF16 -> Float.intBitsToFloat(0xFF7F0000);
            case FP16 -> -65504f;
        };
    }
}
