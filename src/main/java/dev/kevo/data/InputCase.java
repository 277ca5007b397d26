package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/**
 * The input distributions every candidate is checked on. Each exists because some plausible kernel gets it
 * wrong: large magnitudes overflow a naive exp (values in [500, 1000]), -inf entries are how attention
 * masks arrive (scattered, or in contiguous runs as a causal mask makes them, which leave whole warps with nothing
 * finite), constant rows and one dominant entry stress the reduction, and rows masked with the lowest finite float
 * (what Hugging Face adds to masked scores) overflow a max folded into one fma with log2(e). The ordinal is the case number
 * that kevo's generator kernel understands, so the order is part of the replay format: append, never reorder.
 */
public enum InputCase {
    NORMAL_1("normal-1", "normal, scale 1"),
    NORMAL_4("normal-4", "normal, scale 4"),
    NORMAL_20("normal-20", "normal, scale 20"),
    LARGE_POSITIVE("uniform-500-1000", "uniform in [500, 1000]"),
    LARGE_NEGATIVE("uniform-neg", "uniform in [-1000, -500]"),
    MASKED("masked", "normal scale 4 with about 35% -inf, one finite entry per row"),
    CONSTANT("constant", "every row one constant"),
    DOMINANT("dominant", "normal scale 1 with one entry per row raised by 30"),
    CAUSAL("causal", "normal scale 4 in a prefix of 1 to cols/2 entries per row, -inf after it (a causal mask)"),
    LOWEST_MASK("lowest-mask", "causal rows masked with x's lowest finite value (-3.4e38 in float32, Hugging Face's"
            + " mask), every 4th row fully masked");

    private final String id;
    private final String description;

    InputCase(String id, String description) {
        this.id = id;
        this.description = description;
    }

    @JsonValue
    public String id() {
        return id;
    }

    public String description() {
        return description;
    }

    /** By id ({@code normal-1}), or by the enum's name, which {@code kevo eval --json} wrote before. */
    @JsonCreator
    static InputCase fromJson(String text) {
        return Arrays.stream(values()).filter(c -> c.name().equals(text)).findFirst().orElseGet(() -> byId(text));
    }

    public static InputCase byId(String id) {
        String key = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(c -> c.id.equals(key)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown input case '" + id + "' (known: "
                        + String.join(", ", Arrays.stream(values()).map(InputCase::id).toList()) + ")"));
    }
}
