package dev.kevo.data;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How attention masks a shape's scores, for operators that take a mask (masked_softmax): part of what a suite shape
 * names, so that every shape is judged and timed per kind, its floor counting that kind's bytes. A kernel gets the
 * kind as the plan variable {@code mask_kind} (its {@link #ordinal()}, which is therefore part of the contract:
 * append, never reorder), so one cubin serves every kind and a plan can still pick a kernel specialised for one.
 */
public enum MaskKind {
    /** Nothing masked: softmax of the scaled scores. */
    NONE("none"),
    /**
     * Computed from the row's query index, aligned to the bottom right: query q (from 0) sees keys c <= q + (keys -
     * queries); no tensor is read.
     */
    CAUSAL("causal"),
    /** A length per batch entry (int32, tensor {@code lengths}): keys at or past it are masked. */
    PADDING("padding"),
    /**
     * An additive mask of x's type broadcast over heads ([batch, queries, keys], tensor {@code mask}), as Hugging Face
     * passes it: an entry of -inf or of the type's lowest finite value masks its key, any other is added to the score.
     */
    ADDITIVE("additive");

    private final String id;

    MaskKind(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** @throws IllegalArgumentException naming the known ids */
    public static MaskKind byId(String id) {
        String key = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(k -> k.id.equals(key)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("unknown mask kind '" + id + "' (known: " + ids() + ")"));
    }

    public static String ids() {
        return Arrays.stream(values()).map(MaskKind::id).collect(Collectors.joining(", "));
    }
}
