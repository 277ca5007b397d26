package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.TestFiles;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A geometric-mean speedup can be carried by one shape (the shipped sample's by 757x on 1x10000000): wherever show
 * and lineage print a score, the fraction of the memory floor stands beside it.
 */
class ScoreHeadlineTest {
    private static final String SAMPLE = TestFiles.root().resolve("mutations/default-h100").toString();
    private static final Pattern SCORE = Pattern.compile("\\d+\\.\\d{3}x");

    @Test
    void showPutsTheFloorBesideTheChampionAndEachTopScore() {
        Outcome o = kevo("show", SAMPLE);
        assertEquals(0, o.code(), o.err());
        String champion = o.out().lines().filter(l -> l.startsWith("champion ")).findFirst().orElseThrow();
        assertTrue(champion.matches(".*score \\d+\\.\\d{3}x over .*memory floor \\d\\.\\d\\d.*speedups per shape "
                + "\\d+\\.\\d\\dx to \\d+\\.\\d\\dx.*"), champion);
        String top = o.out().lines().filter(l -> l.startsWith("top: ")).findFirst().orElseThrow();
        for (String entry : top.substring(5).split(", ")) {
            assertTrue(entry.matches("\\S+ \\d+\\.\\d{3}x floor \\d\\.\\d\\d"), entry);
        }
    }

    @Test
    void lineagePutsTheFloorBesideEveryScore() {
        Outcome o = kevo("lineage", SAMPLE);
        assertEquals(0, o.code(), o.err());
        List<String> steps = o.out().lines().skip(1).toList();
        assertTrue(steps.size() > 1, o.out());
        for (String step : steps) {
            assertTrue(SCORE.matcher(step).find(), step);
            assertTrue(step.matches(".*\\d{3}x( \\([+-]\\d\\.\\d{3}\\))?\\s+floor \\d\\.\\d\\d .*"), step);
        }
    }
}
