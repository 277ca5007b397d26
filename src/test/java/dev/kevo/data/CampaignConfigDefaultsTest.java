package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The campaign defaults have one home, {@link Defaults}: the shipped config/default.yaml and the docs' "Campaign
 * config" table must say the same, and a partial {@code stop:} block means what the docs say.
 */
class CampaignConfigDefaultsTest {
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
    void theDocsTableShowsTheDefaultsAnEmptyFileGets(@TempDir Path dir) throws Exception {
        ObjectNode table = DocTable.read("Campaign config", Set.of("(none)"));
        for (String key : List.of("/children_per_generation", "/selection/crossover_rate", "/stop/wall_minutes",
                "/fresh_genomes")) {
            assertFalse(table.at(key).isMissingNode(), "the table was read: " + key + " in " + table);
        }
        CampaignConfig fromDocs = CampaignConfig.load(DocTable.write(dir, table));
        assertEquals(load(dir, ""), fromDocs);
        assertEquals(CampaignConfig.defaults(), fromDocs);
    }

    @Test
    void aStopBlockReplacesTheDefaultStopConditionsWhole(@TempDir Path dir) throws Exception {
        assertEquals(new CampaignConfig.Stop(800, 8.5, 0, 0, 0.0), load(dir, "islands: 2\n").stop());
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
}
