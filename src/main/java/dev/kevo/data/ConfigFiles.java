package dev.kevo.data;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kevo.KevoException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Reads kevo's YAML (or JSON) files into records, strictly: an unknown or mistyped key is one line naming the
 * file, the line and the key, never a silently ignored setting.
 */
public final class ConfigFiles {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static final Pattern FROM = Pattern.compile(
            "from (Array|Object|String|Number|Boolean|Integral|Floating-point) value(?: \\((.*?)\\))?");

    private ConfigFiles() {
    }

    /** Writes a record as YAML with the same key names {@link #read} expects. */
    public static String toYaml(Object value) {
        try {
            return YAML.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    public static <T> T read(Path file, Class<T> type) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw KevoException.input(file + ": no such file");
        } catch (IOException e) {
            throw KevoException.input(file + ": cannot read (" + e.getMessage() + ")");
        }
        try {
            // A file with no content (or only comments) sets no key: every key takes its default.
            JsonNode tree = YAML.readTree(text);
            boolean empty = tree == null || tree.isMissingNode() || tree.isNull();
            return YAML.readValue(empty ? "{}" : text, type);
        } catch (UnrecognizedPropertyException e) {
            throw KevoException.input(keyLine(file, text, e) + "unknown key '" + path(e) + "' (known here: "
                    + e.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", "))
                    + ")");
        } catch (MismatchedInputException e) {
            throw KevoException.input(where(file, e) + key(e) + "expected " + expected(e.getTargetType()) + ", got "
                    + got(e));
        } catch (JsonMappingException e) {
            String cause = e.getCause() instanceof IllegalArgumentException iae ? iae.getMessage()
                    : e.getCause() != null ? "incomplete or invalid (" + e.getCause().getMessage() + ")"
                    : e.getOriginalMessage();
            throw KevoException.input(where(file, e) + key(e) + firstLine(cause));
        } catch (JsonProcessingException e) {
            throw KevoException.input(where(file, e) + "malformed YAML: " + firstLine(e.getOriginalMessage()));
        }
    }

    /** What a key of this Java type takes, in the words of someone writing YAML rather than Java. */
    private static String expected(Class<?> type) {
        if (type == null) {
            return "another kind of value";
        }
        if (type == Double.class || type == double.class || type == Float.class || type == float.class) {
            return "a number";
        }
        if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
            return "a whole number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a single value";
        }
        if (Collection.class.isAssignableFrom(type) || type.isArray()) {
            return "a list";
        }
        return "a mapping of keys";
    }

    /** The value the file holds where the mismatch is, as the file shows it. */
    private static String got(MismatchedInputException e) {
        if (e instanceof InvalidFormatException f) {
            return f.getValue() instanceof String text ? "\"" + text + "\"" : String.valueOf(f.getValue());
        }
        if (e.getProcessor() instanceof JsonParser parser && parser.currentToken() != null
                && !parser.currentToken().isStructEnd()) {
            try {
                return switch (parser.currentToken()) {
                    case START_ARRAY -> "a list";
                    case START_OBJECT, FIELD_NAME -> "a mapping";
                    case VALUE_STRING -> "\"" + parser.getText() + "\"";
                    case VALUE_NULL -> "nothing";
                    default -> parser.getText();
                };
            } catch (IOException ignored) {
                // the parser has nothing more to say; the message still names the token
            }
        }
        // by the time the exception is thrown the parser has often moved on; Jackson's message still names the value
        Matcher from = FROM.matcher(String.valueOf(e.getOriginalMessage()));
        if (!from.find()) {
            return "something else";
        }
        String value = from.group(2) == null ? "" : from.group(2).replaceAll("^'|'$", "");
        return switch (from.group(1)) {
            case "Array" -> "a list";
            case "Object" -> "a mapping";
            case "String" -> "\"" + value + "\"";
            default -> value.isEmpty() ? "something else" : value;
        };
    }

    /** {@code 'a.b': } for a value under a key, nothing for the document itself. */
    private static String key(JsonMappingException e) {
        String path = path(e);
        return path.isEmpty() ? "" : "'" + path + "': ";
    }

    /**
     * The line of an unknown key. The parser reports where it had read ahead to, which can be lines past the
     * key, so the key is looked up backwards from there.
     */
    private static String keyLine(Path file, String text, UnrecognizedPropertyException e) {
        List<String> lines = text.lines().toList();
        int reported = e.getLocation() == null ? lines.size() : Math.min(lines.size(), e.getLocation().getLineNr());
        Pattern key = Pattern.compile("^\\s*(-\\s+)?[\"']?" + Pattern.quote(e.getPropertyName()) + "[\"']?\\s*:");
        for (int i = reported - 1; i >= 0; i--) {
            if (key.matcher(lines.get(i)).find()) {
                return file + ":" + (i + 1) + ": ";
            }
        }
        return where(file, e);
    }

    /** The line of the offending token; the exception's own location is where the parser had read ahead to. */
    private static String where(Path file, JsonProcessingException e) {
        JsonLocation location = e.getProcessor() instanceof JsonParser parser ? parser.currentTokenLocation()
                : e.getLocation();
        return location == null || location.getLineNr() < 1 ? file + ": " : file + ":" + location.getLineNr() + ": ";
    }

    /** {@code agents[1].model}: list entries counted from 1, as a reader of the file counts them. */
    private static String path(JsonMappingException e) {
        return e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + (r.getIndex() + 1) + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
    }

    private static String firstLine(String message) {
        return message == null ? "invalid value" : message.lines().findFirst().orElse(message);
    }
}
