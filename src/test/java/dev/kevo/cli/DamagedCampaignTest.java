package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A campaign folder with one mutant record cut short: every command that reads it names the file and stops. */
class DamagedCampaignTest {

    /** The shipped sample, copied, with {@code id}'s record cut to its first 300 bytes. */
    private static Path sampleWithTruncated(Path dir, String id) throws IOException {
        Path sample = TestFiles.root().resolve("mutations/default-h100");
        Path copy = Files.createDirectories(dir.resolve("campaign"));
        try (Stream<Path> files = Files.list(sample)) {
            for (Path file : files.toList()) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        Path record = copy.resolve(id + ".json");
        Files.write(record, java.util.Arrays.copyOf(Files.readAllBytes(record), 300));
        return copy;
    }

    @Test
    void showLineageAndReportNameTheBrokenRecordAndStop(@TempDir Path dir) throws IOException {
        Path campaign = sampleWithTruncated(dir, "g0003-i1-c2");
        Path broken = campaign.resolve("g0003-i1-c2.json");
        for (List<String> args : List.of(List.of("show", campaign.toString()), List.of("lineage", campaign.toString()),
                List.of("report", campaign.toString(), "--out", dir.resolve("r.html").toString()))) {
            Outcome o = kevo(args.toArray(String[]::new));
            assertEquals(2, o.code(), args + ": " + o.err());
            assertEquals("", o.out(), args + " printed part of its answer");
            assertTrue(o.err().startsWith("kevo: " + broken + ":"), args + ": " + o.err());
            assertTrue(o.err().contains("damaged"), o.err());
            assertTrue(!o.err().contains("Source:"), o.err());
            assertEquals(1, o.err().strip().lines().count(), o.err());
        }
    }

    /** The champion's own record is read twice by show: as a mutant and as the champion. */
    @Test
    void aBrokenChampionIsNamedBeforeAnythingIsPrinted(@TempDir Path dir) throws IOException {
        Path campaign = sampleWithTruncated(dir, "g0018-i3-c2");
        Outcome o = kevo("show", campaign.toString());
        assertEquals(2, o.code(), o.err());
        assertEquals("", o.out());
        assertTrue(o.err().startsWith("kevo: " + campaign.resolve("g0018-i3-c2.json") + ":"), o.err());
    }
}
