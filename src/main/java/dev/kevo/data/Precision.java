package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The dtypes of a softmax task: x's and y's, with float32 accumulation. Written {@code bf16} when both are the same
 * and {@code bf16-fp32} (x, then y) when they differ, as in {@code torch.softmax(x, dim=-1, dtype=torch.float32)}
 * on bf16 logits. Only the pairs in {@link #SUPPORTED} are judged.
 */
public record Precision(Dtype x, Dtype y) {
    public static final Precision FP32 = new Precision(Dtype.FP32, Dtype.FP32);
    public static final Precision BF16 = new Precision(Dtype.BF16, Dtype.BF16);
    public static final Precision FP16 = new Precision(Dtype.FP16, Dtype.FP16);
    /** bf16 logits, float32 probabilities. */
    public static final Precision BF16_FP32 = new Precision(Dtype.BF16, Dtype.FP32);
    public static final List<Precision> SUPPORTED = List.of(FP32, BF16, FP16, BF16_FP32);

    /** @throws IllegalArgumentException for an unknown dtype or a pair kevo does not judge, naming those it does */
    @JsonCreator
    public static Precision parse(String text) {
        String[] parts = text.trim().split("-", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException("dtype '" + text + "' is neither one dtype nor 'x-y' " + known());
        }
        Precision p;
        try {
            Dtype x = Dtype.byId(parts[0]);
            p = new Precision(x, parts.length == 2 ? Dtype.byId(parts[1]) : x);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown dtype '" + text + "' " + known());
        }
        if (!SUPPORTED.contains(p)) {
            throw new IllegalArgumentException("dtype '" + text + "' is not one kevo judges " + known());
        }
        return p;
    }

    private static String known() {
        return "(known: " + SUPPORTED.stream().map(Precision::id).collect(Collectors.joining(", ")) + ")";
    }

    @JsonValue
    public String id() {
        return x == y ? x.id() : x.id() + "-" + y.id();
    }

    @Override
    public String toString() {
        return id();
    }
}
