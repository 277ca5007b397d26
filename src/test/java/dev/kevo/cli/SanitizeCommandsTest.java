package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.KevoCli;
import dev.kevo.SanitizerRecords;
import dev.kevo.TestFiles;
import dev.kevo.data.Verdict;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.worker.ComputeSanitizer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** What the commands say about compute-sanitizer, where none needs a GPU. */
class SanitizeCommandsTest {

    @Test
    void showSaysWhatTheSanitizerFoundInTheChampionOrThatItNeverRan(@TempDir Path tmp) throws Exception {
        Path campaign = TestFiles.sampleCampaignCopy(tmp);
        String best = new ObjectMapper().readTree(campaign.resolve("state.json").toFile()).get("bestId").asText();
        KevoCli.Outcome before = kevo("show", campaign.toString());
        assertEquals(0, before.code(), before.err());
        // The sample predates the newest input cases, so it is marked and not offered for sanitizing (a champion
        // that passed them is: ChampionStandingTest).
        assertTrue(before.out().contains("  sanitized: no\n"), before.out());

        SanitizerRecords.write(campaign.resolve(best + ".cu"), Verdict.DATA_RACE,
                "racecheck: 2 hazards in softmax_fused (shared memory, a read and a write no barrier orders)");
        KevoCli.Outcome after = kevo("show", campaign.toString());
        assertEquals(0, after.code(), after.err());
        assertTrue(after.out().contains("sanitized: data-race: memcheck on 32x128 (12.5 s); racecheck: 2 hazards in "
                + "softmax_fused"), after.out());
        // The record beside a mutant is not read as one.
        String count = before.out().lines().filter(l -> l.contains(" mutants (")).findFirst().orElseThrow();
        assertTrue(after.out().contains(count), after.out());
    }

    /**
     * A campaign folder recorded before kevo sealed its records stays readable: show still prints the champion's
     * record, marked as one kevo does not count here.
     */
    @Test
    void showPrintsARecordFromBeforeSealsMarkedUnverified(@TempDir Path tmp) throws Exception {
        Path campaign = TestFiles.sampleCampaignCopy(tmp);
        String best = new ObjectMapper().readTree(campaign.resolve("state.json").toFile()).get("bestId").asText();
        Path source = campaign.resolve(best + ".cu");
        new ObjectMapper().writeValue(SanitizedRecords.beside(source).toFile(),
                SanitizerRecords.unsealed(Files.readString(source), Verdict.PASS, null));
        KevoCli.Outcome show = kevo("show", campaign.toString());
        assertEquals(0, show.code(), show.err());
        assertTrue(show.out().contains("sanitized: pass: memcheck, racecheck, synccheck, initcheck on 32x128 (12.5 s) "
                + "[unverified: it carries no seal"), show.out());
    }

    @Test
    void theWorkerTakesTheFlagThatMakesItASanitizersWorker() {
        WorkerCommand worker = new WorkerCommand();
        new CommandLine(worker).parseArgs("--device", "0", "--sanitize-run");
        assertTrue(worker.sanitizeRun);
    }

    @Test
    void evalsHelpSaysHowToPointItAtTheSanitizer() {
        KevoCli.Outcome help = kevo("eval", "--help");
        assertTrue(help.out().contains("--sanitize") && help.out().contains(ComputeSanitizer.VARIABLE), help.out());
        assertTrue(help.out().contains("compute-sanitizer"), help.out());
    }
}
