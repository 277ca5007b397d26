package dev.kevo.task;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes new current values into a kernel file's header and changes nothing else: a tuned child is its parent
 * with other numbers in {@code "knobs"}, so it stays one self-contained file that {@code kevo eval} reproduces,
 * and its source hash covers the values.
 */
public final class KnobRewriter {
    private static final JsonFactory JSON = new JsonFactory();

    private KnobRewriter() {
    }

    /**
     * The source with each named knob's {@code "value"} replaced.
     *
     * @param values knob name to its new value, each allowed by the knob's declaration
     * @throws IllegalArgumentException when the source has no such knob, a value is not allowed, or the result
     *     breaks the header (the rewritten file is parsed again)
     */
    public static String rewrite(KernelFile file, Map<String, String> values) {
        Knobs target = file.knobs().with(values);
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (!target.get(e.getKey()).orElseThrow().allows(e.getValue())) {
                throw new IllegalArgumentException(file.name() + ": knob " + e.getKey() + " does not allow "
                        + e.getValue());
            }
        }
        String source = file.source();
        int start = source.indexOf(ContractParser.HEADER_START) + ContractParser.HEADER_START.length();
        int end = source.indexOf("*/", start);
        List<int[]> spans = new ArrayList<>();
        Map<int[], String> replacement = new HashMap<>();
        try (JsonParser parser = JSON.createParser(source.substring(start, end))) {
            // Depth 1 is the header object, 2 the knobs object, 3 one knob's object.
            int depth = 0;
            String top = null;
            String knob = null;
            String field = null;
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                switch (token) {
                    case START_OBJECT, START_ARRAY -> {
                        depth++;
                        if (depth == 3 && "knobs".equals(top)) {
                            knob = field;
                        }
                    }
                    case END_OBJECT, END_ARRAY -> depth--;
                    case FIELD_NAME -> {
                        field = parser.currentName();
                        if (depth == 1) {
                            top = field;
                        }
                    }
                    default -> {
                        if (depth == 3 && "knobs".equals(top) && "value".equals(field) && values.containsKey(knob)) {
                            int from = start + (int) parser.currentTokenLocation().getCharOffset();
                            int to = token == JsonToken.VALUE_STRING ? source.indexOf('"', from + 1) + 1
                                    : from + parser.getText().length();
                            int[] span = {from, to};
                            spans.add(span);
                            String value = values.get(knob);
                            replacement.put(span, value.matches("-?\\d+") ? value : "\"" + value + "\"");
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException(file.name() + ": header unreadable: " + e.getMessage(), e);
        }
        StringBuilder out = new StringBuilder(source);
        spans.sort((a, b) -> Integer.compare(b[0], a[0]));
        for (int[] span : spans) {
            out.replace(span[0], span[1], replacement.get(span));
        }
        String rewritten = out.toString();
        KernelFile check = ContractParser.parse(file.name(), file.path(), rewritten);
        if (!check.knobs().current().equals(target.current())) {
            throw new IllegalArgumentException(file.name() + ": rewriting the knobs gave " + check.knobs().describe()
                    + ", not " + target.describe());
        }
        return rewritten;
    }
}
