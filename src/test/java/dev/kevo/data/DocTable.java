package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kevo.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A table of keys and defaults in the docs ({@code | `key`, `other` | default, default | meaning |} under a heading),
 * read back as the YAML it documents, so a test can load it and compare it with {@link Defaults}. It is looked for in
 * README.md and every file under docs/, wherever the section lives.
 */
final class DocTable {
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private DocTable() {
    }

    /**
     * The table under the heading that starts with {@code heading}, as a YAML mapping; rows whose default is one of
     * {@code words} (a default that is said, not written as a value) are left out.
     */
    static ObjectNode read(String heading, Set<String> words) {
        ObjectNode tree = YAML.createObjectNode();
        for (String[] row : rows(heading)) {
            List<String> keys = splitTop(row[0].replace("`", ""));
            List<String> values = splitTop(row[1].replace("`", ""));
            if (values.size() == 1 && words.contains(values.getFirst())) {
                continue;
            }
            assertEquals(keys.size(), values.size(), "row " + row[0] + ": as many defaults as keys");
            String prefix = keys.getFirst().contains(".")
                    ? keys.getFirst().substring(0, keys.getFirst().lastIndexOf('.') + 1) : "";
            for (int i = 0; i < keys.size(); i++) {
                String key = i == 0 || keys.get(i).contains(".") ? keys.get(i) : prefix + keys.get(i);
                try {
                    put(tree, key, YAML.readTree(values.get(i)));
                } catch (IOException e) {
                    throw new UncheckedIOException(key + ": " + values.get(i), e);
                }
            }
        }
        return tree;
    }

    /** Writes {@code tree} where a config loader can read it. */
    static Path write(Path dir, ObjectNode tree) throws IOException {
        return Files.writeString(dir.resolve("from-docs.yaml"), YAML.writeValueAsString(tree));
    }

    /** Sets {@code a.b} in a tree as nested mappings. */
    private static void put(ObjectNode tree, String dotted, JsonNode value) {
        String[] parts = dotted.split("\\.");
        ObjectNode node = tree;
        for (int i = 0; i < parts.length - 1; i++) {
            node = node.has(parts[i]) ? (ObjectNode) node.get(parts[i]) : node.putObject(parts[i]);
        }
        node.set(parts[parts.length - 1], value);
    }

    /** A cell's items separated by commas outside brackets: {@code [{a: 1, b: 2}], 3} is two items. */
    private static List<String> splitTop(String cell) {
        List<String> items = new ArrayList<>();
        int depth = 0;
        StringBuilder item = new StringBuilder();
        for (char ch : cell.toCharArray()) {
            depth += ch == '[' || ch == '{' ? 1 : ch == ']' || ch == '}' ? -1 : 0;
            if (ch == ',' && depth == 0) {
                items.add(item.toString().strip());
                item.setLength(0);
            } else {
                item.append(ch);
            }
        }
        items.add(item.toString().strip());
        return items;
    }

    /** The key and default cells of the first table under the heading. */
    private static List<String[]> rows(String heading) {
        for (Path file : docs()) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (int start = 0; start < lines.size(); start++) {
                if (!lines.get(start).matches("#+ " + Pattern.quote(heading) + ".*")) {
                    continue;
                }
                List<String[]> rows = new ArrayList<>();
                for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
                    if (lines.get(i).startsWith("| `")) {
                        String[] cells = lines.get(i).split("\\|");
                        rows.add(new String[] {cells[1].strip(), cells[2].strip()});
                    }
                }
                assertFalse(rows.isEmpty(), file + ": the table under '" + heading + "' has rows");
                return rows;
            }
        }
        throw new AssertionError("no section '" + heading + "' in README.md or docs/");
    }

    private static List<Path> docs() {
        Path root = TestFiles.root();
        List<Path> files = new ArrayList<>(List.of(root.resolve("README.md")));
        if (Files.isDirectory(root.resolve("docs"))) {
            try (Stream<Path> walk = Files.walk(root.resolve("docs"))) {
                walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return files;
    }
}
