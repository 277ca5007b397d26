package dev.kevo.data;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * An element type of x or y. Accumulation is always float32; a 16-bit type is only how elements are stored, so
 * kevo generates x in it (rounded to nearest even), computes the float64 reference from the rounded values, and
 * reads y in it.
 */
public enum Dtype {
    FP32("fp32", 4, "float"),
    BF16("bf16", 2, "kevo_bf16"),
    FP16("fp16", 2, "kevo_half");

    private final String id;
    private final int bytes;
    private final String cudaType;

    Dtype(String id, int bytes, String cudaType) {
        this.id = id;
        this.bytes = bytes;
        this.cudaType = cudaType;
    }

    public String id() {
        return id;
    }

    public int bytes() {
        return bytes;
    }

    /** The element type a kernel file declares its pointers with ({@code kevo.h} defines the 16-bit ones). */
    public String cudaType() {
        return cudaType;
    }

    /** @throws IllegalArgumentException naming the known ids */
    public static Dtype byId(String text) {
        String key = text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(d -> d.id.equals(key)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown dtype '" + text + "' (known: "
                        + Arrays.stream(values()).map(Dtype::id).collect(Collectors.joining(", ")) + ")"));
    }
}
