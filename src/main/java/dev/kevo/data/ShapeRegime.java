package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/**
 * The kinds of shape a suite can miss, from which each evaluation draws fresh shapes to check: a suite fixed in
 * advance lets a kernel assume its shapes (exactly 128 columns, columns a multiple of 4, many rows, even sizes).
 */
public enum ShapeRegime {
    NARROW("narrow", "fewer than 128 columns"),
    UNALIGNED("unaligned", "columns not a multiple of 4"),
    ONE_ROW("one-row", "a single row"),
    LARGE_ODD("large-odd", "many long rows, both dimensions odd");

    private final String id;
    private final String description;

    ShapeRegime(String id, String description) {
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

    /** Whether a shape of {@code rows x cols} belongs to this regime (size aside). */
    public boolean holds(long rows, long cols) {
        return switch (this) {
            case NARROW -> cols < 128;
            case UNALIGNED -> cols % 4 != 0;
            case ONE_ROW -> rows == 1;
            case LARGE_ODD -> rows % 2 == 1 && cols % 2 == 1;
        };
    }

    @JsonCreator
    public static ShapeRegime byId(String id) {
        String key = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(r -> r.id.equals(key)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown shape regime '" + id + "' (known: "
                        + String.join(", ", Arrays.stream(values()).map(ShapeRegime::id).toList()) + ")"));
    }
}
