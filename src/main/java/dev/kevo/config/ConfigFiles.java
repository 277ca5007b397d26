package dev.kevo.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kevo.KevoException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
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

    private ConfigFiles() {
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
            T value = YAML.readValue(text, type);
            if (value == null) {
                throw KevoException.input(file + ": empty file");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw KevoException.input(where(file, e) + "unknown key '" + path(e) + "' (known here: "
                    + e.getKnownPropertyIds().stream().map(Object::toString).sorted().collect(Collectors.joining(", "))
                    + ")");
        } catch (JsonMappingException e) {
            String cause = e.getCause() instanceof IllegalArgumentException iae ? iae.getMessage() : e.getOriginalMessage();
            throw KevoException.input(where(file, e) + "'" + path(e) + "': " + firstLine(cause));
        } catch (JsonProcessingException e) {
            throw KevoException.input(where(file, e) + "malformed YAML: " + firstLine(e.getOriginalMessage()));
        }
    }

    private static String where(Path file, JsonProcessingException e) {
        return e.getLocation() == null ? file + ": " : file + ":" + e.getLocation().getLineNr() + ": ";
    }

    private static String path(JsonMappingException e) {
        return e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining(".")).replace(".[", "[");
    }

    private static String firstLine(String message) {
        return message == null ? "invalid value" : message.lines().findFirst().orElse(message);
    }
}
