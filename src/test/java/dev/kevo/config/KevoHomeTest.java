package dev.kevo.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KevoHomeTest {

    private static final Path ROOT = Path.of(System.getProperty("kevo.root", ".")).toAbsolutePath();

    @Test
    void aCheckoutAsWorkingDirectoryWins(@TempDir Path other) throws IOException {
        Files.createDirectories(other.resolve("evaluator/suites"));
        KevoHome home = KevoHome.locate(Map.of("KEVO_HOME", other.toString()), ROOT);
        assertEquals(ROOT, home.root());
    }

    @Test
    void otherwiseKevoHome(@TempDir Path dir) throws IOException {
        Path cwd = Files.createDirectories(dir.resolve("somewhere"));
        KevoHome home = KevoHome.locate(Map.of("KEVO_HOME", ROOT.toString()), cwd);
        assertEquals(ROOT, home.root());
        assertEquals(ROOT.resolve("seeds"), home.seeds());
    }

    @Test
    void otherwiseTheWorkingDirectory(@TempDir Path dir) throws IOException {
        Path cwd = Files.createDirectories(dir.resolve("cwd"));
        Path notAHome = Files.createDirectories(dir.resolve("not-a-home"));
        assertEquals(cwd, KevoHome.locate(Map.of(), cwd).root());
        assertEquals(cwd, KevoHome.locate(Map.of("KEVO_HOME", notAHome.toString()), cwd).root());
    }

    @Test
    void lookupsByName() {
        KevoHome home = new KevoHome(ROOT);
        assertEquals(ROOT.resolve("evaluator/suites/standard.yaml"), home.suite("standard"));
        assertEquals(ROOT.resolve("evaluator/suites/seed004.yaml"), home.suite("seed004.yaml"));
        assertEquals(ROOT.resolve("evaluator/baselines/block_two_pass.cu"), home.baseline("block_two_pass"));
        assertEquals(ROOT.resolve("config/eval.yaml"), home.config("eval"));
        assertTrue(Files.isRegularFile(home.suite("quick")));
    }

    @Test
    void aPathToAnExistingFileIsTakenAsIs(@TempDir Path dir) throws IOException {
        Path mine = dir.resolve("mine.yaml");
        Files.writeString(mine, "shapes: [1x1]\n");
        KevoHome home = new KevoHome(ROOT);
        assertEquals(mine, home.suite(mine.toString()));
        Path baseline = dir.resolve("fast.cu");
        Files.writeString(baseline, "// kernel\n");
        assertEquals(baseline, home.baseline(baseline.toString()));
    }

    /** A config's {@code baseline: evaluator/baselines/NAME.cu}, read from outside the checkout, is the home's. */
    @Test
    void aRelativePathMissingHereIsTheHomes(@TempDir Path dir) throws IOException {
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(home.resolve("evaluator/baselines"));
        Path fast = Files.writeString(home.resolve("evaluator/baselines/fast.cu"), "// kernel\n");
        assertEquals(fast, new KevoHome(home).baseline("evaluator/baselines/fast.cu"));
    }

    @Test
    void missingSuiteOrBaselineSaysWhereItLooked() {
        KevoHome home = new KevoHome(ROOT);
        KevoException suite = assertThrows(KevoException.class, () -> home.suite("nope"));
        assertEquals("no suite 'nope' (looked for " + ROOT.resolve("evaluator/suites/nope.yaml") + ")",
                suite.getMessage());
        assertEquals(KevoException.Kind.INPUT, suite.kind());
        KevoException baseline = assertThrows(KevoException.class, () -> home.baseline("fastest"));
        assertEquals("no baseline 'fastest' (looked for " + ROOT.resolve("evaluator/baselines/fastest.cu") + ")",
                baseline.getMessage());
        KevoException config = assertThrows(KevoException.class, () -> home.config("other"));
        assertTrue(config.getMessage().startsWith("no config 'other'"), config::getMessage);
        // a baseline name does not find a suite of the same name
        assertThrows(KevoException.class, () -> home.suite("block_two_pass"));
    }
}
