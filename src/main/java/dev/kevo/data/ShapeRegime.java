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
    /** Fewer than 128 columns. */
    NARROW("narrow"),
    /** Columns not a multiple of 4. */
    UNALIGNED("unaligned"),
    /** A single row. */
    ONE_ROW("one-row"),
    /** Many long rows, both dimensions odd. */
    LARGE_ODD("large-odd"),
    /** More rows than the suite's largest row count: row indices past any the suite reaches. */
    MANY_ROWS("many-rows"),
    /**
     * Language-model heads: an even number of long rows whose columns are a multiple of 4 (vocabularies are), the
     * regime where vectorised plans run.
     */
    LM_HEAD("lm-head");

    private final String id;

    ShapeRegime(String id) {
        this.id = id;
    }

    @JsonValue
    public String id() {
        return id;
    }

    /** Whether a shape of {@code rows x cols} belongs to this regime (size aside). */
    public boolean holds(long rows, long cols) {
        return switch (this) {
            case NARROW -> cols < 128;
            case UNALIGNED -> cols % 4 != 0;
            case ONE_ROW -> rows == 1;
            case LARGE_ODD -> rows % 2 == 1 && cols % 2 == 1;
            case MANY_ROWS -> rows > 1;
            case LM_HEAD -> rows % 2 == 0 && cols % 4 == 0;
        };
    }

    /**
     * True for the regimes too large to draw for every evaluation (past the suite's row count, or many long rows),
     * which champion confirmation and {@code kevo eval --at-scale} draw held-out shapes from.
     */
    public boolean heldOutOnly() {
        return this == MANY_ROWS || this == LM_HEAD;
    }

    @JsonCreator
    public static ShapeRegime byId(String id) {
        String key = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(r -> r.id.equals(key)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown shape regime '" + id + "' (known: "
                        + String.join(", ", Arrays.stream(values()).map(ShapeRegime::id).toList()) + ")"));
    }
}
