package dev.kevo.data;

import dev.kevo.KevoException;
import java.util.Set;

/**
 * A problem size: {@code rows} independent rows of {@code cols} contiguous elements. Rows and cols are each an
 * int (a kernel takes them as int), their product is not: past 2^31 elements is where 32-bit offsets go wrong, and
 * kevo checks champions there.
 *
 * <p>Rows may also be laid out as attention lays them out: {@code batch x heads x queries} rows of {@code cols} keys,
 * row {@code r} being query {@code r % queries} of head {@code (r / queries) % heads} of batch entry
 * {@code r / (queries * heads)}, with a {@link MaskKind}. A plain shape is one batch entry of one head whose queries
 * are its rows, masked by nothing, which is what every shape was before attention shapes: the same text, the same
 * plans, the same inputs. The mask kind is part of the shape, not of the task, because a plan chooses by it as by
 * the size, and a suite judges and times every shape per kind.
 */
public record Shape(int rows, int cols, int batch, int heads, MaskKind mask) {

    /**
     * The names a plan reads an attention shape's layout by: batch entries, heads, queries per head and the mask kind's
     * number ({@link MaskKind#ordinal()}). Only the plans of an operator that takes attention shapes may name them
     * ({@code Operator.planVariables()}): for any other they would always read 1, 1, rows and 0.
     */
    public static final Set<String> ATTENTION_VARIABLES = Set.of("batch", "heads", "queries", "mask_kind");

    private static final String FORMS = "expected ROWSxCOLS or BATCHxHEADSxQUERIESxKEYS, either followed by :MASK"
            + " (" + MaskKind.ids() + "), e.g. 4096x4096 or 2x32x16x4096:causal";

    public Shape {
        if (rows < 1 || cols < 1) {
            throw KevoException.input("shape " + rows + "x" + cols + ": rows and cols must be positive");
        }
        if (batch < 1 || heads < 1 || rows % ((long) batch * heads) != 0) {
            throw KevoException.input("shape of " + rows + " rows: not " + batch + " batch entries x " + heads
                    + " heads x a whole number of queries");
        }
        if (mask == null) {
            mask = MaskKind.NONE;
        }
    }

    /** A plain shape: one batch entry, one head, no mask. */
    public Shape(int rows, int cols) {
        this(rows, cols, 1, 1, MaskKind.NONE);
    }

    /**
     * An attention shape: {@code batch x heads x queries} rows of {@code keys} columns.
     *
     * @throws KevoException (input) for a size that is not positive or rows past an int
     */
    public static Shape attention(long batch, long heads, long queries, long keys, MaskKind mask) {
        String text = batch + "x" + heads + "x" + queries + "x" + keys;
        if (batch < 1 || heads < 1 || queries < 1 || keys < 1) {
            throw KevoException.input("shape " + text + ": batch, heads, queries and keys must be positive");
        }
        if (batch * heads > Integer.MAX_VALUE || batch * heads * queries > Integer.MAX_VALUE
                || keys > Integer.MAX_VALUE) {
            throw KevoException.input("shape " + text + ": batch x heads x queries (the rows) and keys must each fit"
                    + " an int");
        }
        return new Shape((int) (batch * heads * queries), (int) keys, (int) batch, (int) heads, mask);
    }

    /**
     * Parses {@code ROWSxCOLS} ({@code 4096x4096}) or {@code BATCHxHEADSxQUERIESxKEYS} ({@code 2x32x16x4096}), either
     * with {@code :MASK} after it ({@code 2x32x16x4096:causal}); what {@link #toString()} writes.
     */
    public static Shape parse(String text) {
        String[] masked = text.trim().toLowerCase().split(":", -1);
        if (masked.length > 2) {
            throw KevoException.input("shape '" + text + "': " + FORMS);
        }
        MaskKind mask = MaskKind.NONE;
        if (masked.length == 2) {
            try {
                mask = MaskKind.byId(masked[1]);
            } catch (IllegalArgumentException e) {
                throw KevoException.input("shape '" + text + "': " + e.getMessage());
            }
        }
        String[] parts = masked[0].split("x", -1);
        long[] sizes = new long[parts.length];
        try {
            for (int i = 0; i < parts.length; i++) {
                sizes[i] = Long.parseLong(parts[i].trim());
            }
        } catch (NumberFormatException e) {
            throw KevoException.input("shape '" + text + "': " + FORMS);
        }
        return switch (parts.length) {
            case 2 -> {
                if (sizes[0] > Integer.MAX_VALUE || sizes[1] > Integer.MAX_VALUE) {
                    throw KevoException.input("shape '" + text + "': rows and cols must each fit an int");
                }
                yield new Shape((int) sizes[0], (int) sizes[1], 1, 1, mask);
            }
            case 4 -> attention(sizes[0], sizes[1], sizes[2], sizes[3], mask);
            default -> throw KevoException.input("shape '" + text + "': " + FORMS);
        };
    }

    public long elements() {
        return (long) rows * cols;
    }

    /** Queries per head: the rows of one head of one batch entry. */
    public int queries() {
        return rows / (batch * heads);
    }

    /** Keys: the columns, by their attention name. */
    public int keys() {
        return cols;
    }

    /** The same layout under another mask kind. */
    public Shape withMask(MaskKind kind) {
        return new Shape(rows, cols, batch, heads, kind);
    }

    /**
     * A shape of {@code newRows x newCols} standing for this one where a check derives shapes from a checked one (a
     * few-row twin, a ragged row end, a shape past 2^31 elements): the same mask kind, and as much of the layout as
     * the new rows divide into (batch and heads, else heads, else one of each), since plans may choose by both.
     */
    public Shape resized(int newRows, int newCols) {
        if (newRows % ((long) batch * heads) == 0) {
            return new Shape(newRows, newCols, batch, heads, mask);
        }
        return newRows % heads == 0 ? new Shape(newRows, newCols, 1, heads, mask)
                : new Shape(newRows, newCols, 1, 1, mask);
    }

    /** {@code ROWSxCOLS} for one batch entry of one head, else {@code BATCHxHEADSxQUERIESxKEYS}; {@code :MASK} after. */
    @Override
    public String toString() {
        String size = batch == 1 && heads == 1 ? rows + "x" + cols
                : batch + "x" + heads + "x" + queries() + "x" + cols;
        return mask == MaskKind.NONE ? size : size + ":" + mask.id();
    }
}
