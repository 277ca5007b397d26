package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/**
 * Which kernels go through compute-sanitizer (the {@code sanitize} key of the evaluation settings) besides those
 * {@code kevo eval --sanitize} names. A pass costs several worker starts under the sanitizer, far more than an
 * evaluation, so by default only what kevo hands out is sanitized: a campaign's champion before it is named.
 */
public enum SanitizeWhen {
    /** Only {@code kevo eval --sanitize}; a campaign's champion is then not sanitized, and cannot be exported. */
    OFF("off"),
    /** A campaign sanitizes its champion before naming it (a failing one gives the title to the next best). */
    CHAMPION("champion"),
    /** Also every candidate that passes its evaluation, in campaigns, {@code kevo eval} and {@code kevo reeval}. */
    EVERY("every");

    private final String id;

    SanitizeWhen(String id) {
        this.id = id;
    }

    @JsonValue
    public String id() {
        return id;
    }

    @JsonCreator
    static SanitizeWhen fromJson(String text) {
        String key = text.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values()).filter(w -> w.id.equals(key)).findFirst().orElseThrow(() ->
                new IllegalArgumentException("sanitize: '" + text + "' is not one of "
                        + String.join(", ", Arrays.stream(values()).map(SanitizeWhen::id).toList())));
    }
}
