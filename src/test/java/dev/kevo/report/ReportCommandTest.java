package dev.kevo.report;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.store.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kevo report as a user meets it: where pages go, what it prints, one-line errors with exit code 2. */
class ReportCommandTest {

    @Test
    void aCampaignsPageGoesIntoItsFolderByDefault(@TempDir Path tmp) throws IOException {
        Path folder = ReportFixture.copy(tmp);
        Outcome o = kevo("report", folder.toString());
        assertEquals(0, o.code(), o.err());
        Path page = folder.resolve("report.html");
        assertTrue(o.out().startsWith("wrote " + page + " ("), o.out());
        String html = Files.readString(page);
        assertTrue(html.contains("<title>kevo report: default-h100</title>"));
        assertTrue(html.contains("\"sourceHref\":\"g0018-i3-c2.cu\""), "links relative to the page");
        assertTrue(html.contains("by: kevo report " + folder), "the footer says how it was made");
    }

    @Test
    void outAndTopAreHonoured(@TempDir Path tmp) throws IOException {
        Path page = tmp.resolve("pages/r.html");
        Outcome o = kevo("report", ReportFixture.folder().toString(), "--out", page.toString(), "--top", "2");
        assertEquals(0, o.code(), o.err());
        String html = Files.readString(page);
        assertTrue(html.contains("\"rank\":2,"));
        assertFalse(html.contains("\"rank\":3,"));
    }

    @Test
    void compareWritesOnePage(@TempDir Path tmp) throws IOException {
        Path page = tmp.resolve("cmp.html");
        Outcome o = kevo("report", "--compare", ReportFixture.folder().toString(),
                ReportFixture.folder().resolve("seed-online").toString(), "--out", page.toString());
        assertEquals(0, o.code(), o.err());
        String html = Files.readString(page);
        assertTrue(html.contains("<title>kevo compare: default-h100 vs default-h100-seed-online</title>"), html.substring(0, 400));
        assertTrue(html.contains("\"kind\":\"compare\""));
    }

    @Test
    void badInputIsOneLineAndExitTwo(@TempDir Path tmp) {
        String folder = ReportFixture.folder().toString();
        expectInputError(kevo("report"), "name a campaign folder");
        expectInputError(kevo("report", tmp.toString()), "not a campaign folder");
        expectInputError(kevo("report", folder, folder, "--out", tmp.resolve("x.html").toString()), "--out names one file");
        expectInputError(kevo("report", folder, "--compare", folder, folder), "either campaign folders or --compare");
        expectInputError(kevo("report", "--compare", folder, folder + "/g9999-i0-c0"), "neither a campaign folder");
        Outcome usage = kevo("report", "--compare", folder);
        assertEquals(2, usage.code());
        // an option out of range is a usage error: its line, then where the help is
        Outcome top = kevo("report", folder, "--top", "0");
        assertEquals(2, top.code());
        assertEquals(List.of("kevo: --top must be at least 1 (got 0)", "see 'kevo report --help'"),
                top.err().strip().lines().toList());
    }

    @Test
    void aFailedWriteLeavesNoTemporaryFileBehind(@TempDir Path tmp) throws IOException {
        Path folder = Files.createDirectories(tmp.resolve("existing"));
        expectInputError(kevo("report", ReportFixture.folder().toString(), "--out", folder.toString()),
                "is a folder");
        // past the folder check: a page whose rename fails (its name taken by a non-empty folder) must not leave
        // its hidden temporary copy (a megabyte) beside it
        Path taken = Files.createDirectories(tmp.resolve("taken.html"));
        Files.writeString(taken.resolve("inside"), "x");
        IOException e = assertThrows(IOException.class,
                () -> AtomicFiles.write(taken, "page"));
        assertTrue(e.getMessage().contains("taken.html"), e.getMessage());
        try (var left = Files.list(tmp)) {
            assertEquals(List.of("existing", "taken.html"),
                    left.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertEquals(List.of(), Files.list(folder).toList());
    }

    @Test
    void helpAnswersWhatThePageShowsAndHowToCompare() {
        Outcome o = kevo("report", "--help");
        assertEquals(0, o.code());
        assertTrue(o.out().contains("lineage") && o.out().contains("--compare") && o.out().contains("memory floor"),
                o.out());
    }

    private static void expectInputError(Outcome o, String message) {
        assertEquals(2, o.code(), o.out() + o.err());
        assertTrue(o.err().startsWith("kevo: ") && o.err().contains(message), o.err());
        assertEquals(1, o.err().strip().lines().count(), o.err());
        assertFalse(o.err().contains("\tat "), o.err());
    }
}
