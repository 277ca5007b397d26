package dev.kevo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A campaign that cannot start is checked before its folder is made, so it leaves nothing behind. */
class EvolveStartTest {

    /**
     * GPU 63 exists on no host this runs on (and on a host without a GPU no device does): the workers cannot
     * start, which is exit code 3, and the output folder is never made.
     */
    @Test
    void aCampaignWhoseDevicesCannotStartLeavesNoFolder(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        Path config = dir.resolve("c.yaml");
        Files.writeString(config, "name: nostart\noutput: " + out + "\n");
        KevoCli.Outcome run = KevoCli.kevo("evolve", "--config", config.toString(), "--devices", "63", "--quiet");
        assertEquals(3, run.code(), run.out() + run.err());
        assertFalse(Files.exists(out), "no campaign folder: " + run.out());
        assertFalse(run.out().contains("campaign "), "no folder announced: " + run.out());
        // compute-sanitizer is optional, and the GPU is checked first: a host without either hears of the GPU.
        assertFalse(run.err().contains("compute-sanitizer"), run.err());
    }

    /** Exit 3's help says what it means for a campaign, and that a missing compute-sanitizer is not it. */
    @Test
    void theHelpSaysWhenAMissingComputeSanitizerStopsACampaign() {
        String help = KevoCli.kevo("evolve", "--help").out().replaceAll("\\s+", " ");
        String three = help.substring(help.indexOf(" 3 "), help.indexOf(" 70 "));
        assertTrue(three.contains("no GPU, driver or NVRTC") && three.contains("'sanitize: every'")
                && three.contains("runs, says so"), three);
    }

    @Test
    void aBadDeviceListIsAUsageErrorBeforeAnyFolder(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out");
        Path config = dir.resolve("c.yaml");
        Files.writeString(config, "output: " + out + "\n");
        KevoCli.Outcome run = KevoCli.kevo("evolve", "--config", config.toString(), "--devices", "first");
        assertEquals(2, run.code(), run.out() + run.err());
        assertTrue(run.err().contains("--devices"), run.err());
        assertFalse(Files.exists(out));
    }
}
