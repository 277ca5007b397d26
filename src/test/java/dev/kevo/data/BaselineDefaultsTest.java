package dev.kevo.data;


import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kevo.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** auto is the default baseline everywhere: the shipped configs, and a config that leaves the key out. */
class BaselineDefaultsTest {

    @Test
    void theShippedConfigsSayAuto() {
        assertEquals("auto", EvalSettings.load(TestFiles.root().resolve("config/eval.yaml")).baseline());
        assertEquals("auto", CampaignConfig.load(TestFiles.root().resolve("config/default.yaml")).baseline());
    }

    @Test
    void aConfigWithoutTheKeyTakesAuto(@TempDir Path dir) throws IOException {
        Path eval = Files.writeString(dir.resolve("eval.yaml"), "suite: quick\n");
        assertEquals("auto", EvalSettings.load(eval).baseline());
        Path campaign = Files.writeString(dir.resolve("c.yaml"), "name: c\n");
        assertEquals("auto", CampaignConfig.load(campaign).baseline());
        Path named = Files.writeString(dir.resolve("named.yaml"), "baseline: block_two_pass\n");
        assertEquals("block_two_pass", EvalSettings.load(named).baseline(), "a named file baseline stays");
    }
}
