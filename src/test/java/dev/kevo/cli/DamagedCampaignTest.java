package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/** A campaign folder with one mutant record cut short: every command that reads it names the file and stops. */
class DamagedCampaignTest {

    /** The shipped sample, copied, with {@code id}'s record cut to its first 300 bytes. */
    private static Path sampleWithTruncated(Path dir, String id) throws IOException {
        Path copy = sample(dir);
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

    /** The shipped sample, copied. */
    private static Path sample(Path dir) throws IOException {
        Path sample = TestFiles.root().resolve("mutations/default-h100");
        Path copy = Files.createDirectories(dir.resolve("campaign"));
        try (Stream<Path> files = Files.list(sample)) {
            for (Path file : files.toList()) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        return copy;
    }

    /**
     * A folder that lost state.json (it is written once the seeds are judged, and the sample holds 18 generations)
     * or the champion's files that state.json names: damaged, said in one line naming the missing file, instead of
     * a campaign shown without its champion.
     */
    @ParameterizedTest
    @ValueSource(strings = {"state.json", "champion.json", "champion.cu"})
    void aMissingStateOrChampionFileIsDamage(String file, @TempDir Path dir) throws IOException {
        Path campaign = sample(dir);
        Files.delete(campaign.resolve(file));
        for (List<String> args : List.of(List.of("show", campaign.toString()), List.of("lineage", campaign.toString()),
                List.of("report", campaign.toString(), "--out", dir.resolve("r.html").toString()),
                List.of("export", campaign.toString(), "--out", dir.resolve("pkg").toString()))) {
            Outcome o = kevo(args.toArray(String[]::new));
            assertEquals(2, o.code(), args + ": " + o.out() + o.err());
            assertEquals("", o.out(), args + " printed part of its answer");
            assertTrue(o.err().startsWith("kevo: " + campaign.resolve(file) + ": missing, although "), o.err());
            assertTrue(o.err().contains("a damaged campaign folder"), o.err());
            assertEquals(1, o.err().strip().lines().count(), o.err());
        }
        assertFalse(Files.exists(dir.resolve("r.html")));
    }

    /** While the seeds are judged there is no state.json yet: that folder is not damaged. */
    @Test
    void aCampaignStillJudgingItsSeedsHasNoStateAndIsNotDamaged(@TempDir Path dir) throws IOException {
        Path campaign = sample(dir);
        try (Stream<Path> files = Files.list(campaign)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.startsWith("g0") || name.equals("state.json") || name.equals("confirmation.json")) {
                    Files.delete(f);
                }
            }
        }
        Outcome o = kevo("show", campaign.toString());
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().contains("seeds"), o.out());
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
