package dev.kevo.export;

import dev.kevo.cuda.Prelude;
import java.util.Map;

/** A source file kept as a resource of this package, with {@code @@NAME@@} slots filled in. */
final class Template {
    private Template() {
    }

    static String fill(String resource, Map<String, String> values) {
        String text = Prelude.resource(Template.class, resource);
        for (Map.Entry<String, String> slot : values.entrySet()) {
            text = text.replace("@@" + slot.getKey() + "@@", slot.getValue());
        }
        int left = text.indexOf("@@");
        if (left >= 0) {
            throw new IllegalStateException(resource + ": slot left unfilled at " + text.substring(left,
                    Math.min(text.length(), left + 40)));
        }
        return text;
    }

    static String plain(String resource) {
        return fill(resource, Map.of());
    }
}
