package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaign defaults have one home, {@link CampaignConfig#DEFAULT}: the shipped config/default.yaml and the
 * README's "Campaign config" table must say the same, and a partial {@code stop:} block means what the README says.
 */
class CampaignConfigDefaultsTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static CampaignConfig load(Path dir, String yaml) throws Exception {
        Path file = dir.resolve("c.yaml");
        Files.writeString(file, yaml);
        return CampaignConfig.load(file);
    }

    private static CampaignConfig named(CampaignConfig c, String name) {
        return c.toBuilder().name(name).build();
    }

    @Test
    void anEmptyFileLoadsEqualToTheShippedDefaultYamlApartFromTheName(@TempDir Path dir) throws Exception {
        CampaignConfig empty = load(dir, "# nothing set\n");
        CampaignConfig shipped = CampaignConfig.load(TestFiles.root().resolve("config/default.yaml"));
        assertEquals(named(shipped, "x"), named(empty, "x"));
        assertEquals(3, empty.childrenPerGeneration(), "the documented value, not the one code once had");
        assertEquals(0.25, empty.selection().crossoverRate());
    }

    @Test
    void theReadmeTableShowsTheDefaultsAnEmptyFileGets(@TempDir Path dir) throws Exception {
        List<String[]> rows = readmeRows();
        ObjectNode tree = YAML.createObjectNode();
        List<String> documented = new ArrayList<>();
        for (String[] row : rows) {
            List<String> keys = splitTop(row[0].replace("`", ""));
            List<String> values = splitTop(row[1].replace("`", ""));
            if (values.equals(List.of("(none)"))) {
                continue;
            }
            assertEquals(keys.size(), values.size(), "README row " + row[0] + ": as many defaults as keys");
            String prefix = keys.getFirst().contains(".")
                    ? keys.getFirst().substring(0, keys.getFirst().lastIndexOf('.') + 1) : "";
            for (int i = 0; i < keys.size(); i++) {
                String key = i == 0 ? keys.get(i) : prefix + keys.get(i);
                put(tree, key, YAML.readTree(values.get(i)));
                documented.add(key);
            }
        }
        assertTrue(documented.containsAll(List.of("children_per_generation", "selection.crossover_rate",
                "stop.wall_minutes", "fresh_genomes")), "the table was read: " + documented);
        CampaignConfig fromReadme = load(dir, YAML.writeValueAsString(tree));
        assertEquals(load(dir, ""), fromReadme);
        assertEquals(CampaignConfig.defaults(), fromReadme);
    }

    @Test
    void aStopBlockReplacesTheDefaultStopConditionsWhole(@TempDir Path dir) throws Exception {
        assertEquals(new CampaignConfig.Stop(400, 8.5, 0, 0, 0.0), load(dir, "islands: 2\n").stop());
        assertEquals(new CampaignConfig.Stop(50, 0.0, 0, 0, 0.0), load(dir, "stop: {evaluations: 50}\n").stop(),
                "no wall-time limit left over from the defaults");
        assertEquals(new CampaignConfig.Stop(0, 0.0, 0, 0, 2.5), load(dir, "stop:\n  cost: 2.5\n").stop());
        String message = assertThrows(KevoException.class, () -> load(dir, "stop: {no_improvement: 5}\n"))
                .getMessage();
        assertTrue(message.contains("stop: set at least one of") && message.contains("replaces the default"),
                message);
    }

    @Test
    void keysOutsideStopAreFilledOneByOne(@TempDir Path dir) throws Exception {
        CampaignConfig c = load(dir, "selection: {elitism: 1}\n");
        assertEquals(new CampaignConfig.Selection(3, 1, 0.25), c.selection());
        assertFalse(c.equals(load(dir, "")));
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

    /** The key and default cells of the README's "Campaign config" table. */
    private static List<String[]> readmeRows() throws Exception {
        List<String> lines = Files.readAllLines(TestFiles.root().resolve("README.md"));
        int start = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("### Campaign config")) {
                start = i;
                break;
            }
        }
        assertTrue(start >= 0, "README has a Campaign config section");
        List<String[]> rows = new ArrayList<>();
        for (int i = start + 1; i < lines.size() && !lines.get(i).startsWith("#"); i++) {
            String line = lines.get(i);
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            rows.add(new String[] {cells[1].strip(), cells[2].strip()});
        }
        assertFalse(rows.isEmpty(), "the Campaign config table has rows");
        return rows;
    }
}
