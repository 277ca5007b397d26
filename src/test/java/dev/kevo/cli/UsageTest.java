package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.ExitCode;
import dev.kevo.KevoCli.Outcome;
import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a new user meets when a command line is wrong: one line that says what, the right exit code, the help. */
class UsageTest {

    private static final String SEED = TestFiles.root().resolve("seeds/reference/naive.cu").toString();

    /** A usage error is its line and a pointer to the command's help, never the whole usage block. */
    private static void assertUsageError(Outcome o, String command, String message) {
        assertEquals(2, o.code(), o.err());
        List<String> lines = o.err().strip().lines().toList();
        assertTrue(lines.getFirst().startsWith("kevo: ") && lines.getFirst().contains(message), o.err());
        assertEquals("see '" + command + " --help'", lines.getLast(), o.err());
        assertFalse(o.err().contains("Usage:"), o.err());
    }

    @Test
    void anUnknownOptionIsOneLineAndTheHelpHint() {
        assertUsageError(kevo("check", "--bogus", SEED), "kevo check", "'--bogus'");
        assertUsageError(kevo("show"), "kevo show", "CAMPAIGN");
        assertUsageError(kevo("chekc", SEED), "kevo", "'chekc'");
    }

    @Test
    void checkRejectsAMultiprocessorCountBelowOne() {
        assertUsageError(kevo("check", "--sms", "0", SEED), "kevo check", "--sms must be at least 1 (got 0)");
        assertUsageError(kevo("check", "--sms", "-3", SEED), "kevo check", "--sms must be at least 1 (got -3)");
    }

    /** A number picocli parses but the command cannot use is the user's error, not kevo's (exit 70). */
    @Test
    void numericOptionsOutOfRangeAreUsageErrors() {
        String sample = TestFiles.root().resolve("mutations/default-h100").toString();
        assertUsageError(kevo("reeval", sample, "--top", "-3"), "kevo reeval", "--top must be at least 1 (got -3)");
        assertUsageError(kevo("reeval", sample, "--top", "0"), "kevo reeval", "--top must be at least 1 (got 0)");
        assertUsageError(kevo("reeval", sample, "--device", "-1"), "kevo reeval", "--device must be at least 0");
        assertUsageError(kevo("reeval", sample, "--noise", "-1"), "kevo reeval", "--noise must be a number above 0");
        assertUsageError(kevo("reeval", sample, "--noise", "NaN"), "kevo reeval", "--noise must be a number above 0");
        assertUsageError(kevo("reeval", sample, "--noise", "Infinity"), "kevo reeval", "--noise must be a number");
        assertUsageError(kevo("eval", "--device", "-1", SEED), "kevo eval", "--device must be at least 0 (got -1)");
        assertUsageError(kevo("report", sample, "--top", "0"), "kevo report", "--top must be at least 1 (got 0)");
        assertUsageError(kevo("evolve", "--devices", "first"), "kevo evolve", "--devices: 'all' or GPU ordinals");
        assertUsageError(kevo("evolve", "--compilers", "-1"), "kevo evolve", "--compilers must be at least 0 (got -1)");
        assertUsageError(kevo("evolve", "--workers", "slurm:0"), "kevo evolve", "--workers: local, slurm or slurm:N");
        assertUsageError(kevo("worker", "--device", "-1"), "kevo worker", "--device must be at least 0 (got -1)");
    }

    @Test
    void theHiddenWorkerCommandAnswersHelp() {
        Outcome o = kevo("worker", "--help");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().startsWith("Judge candidates for a supervisor"), o.out());
    }

    /** --op's help names every operator kevo judges out of the box (an operator it refuses is not one). */
    @Test
    void opHelpNamesEveryOperatorKevoJudges() {
        for (String command : List.of("eval", "check")) {
            String help = kevo(command, "--help").out().replaceAll("\\s+", " ");
            for (dev.kevo.task.op.Operator op : List.of(dev.kevo.task.op.Operators.SOFTMAX,
                    dev.kevo.task.op.Operators.LOG_SOFTMAX, dev.kevo.task.op.Operators.MASKED_SOFTMAX,
                    dev.kevo.task.op.Operators.SOFTMAX_BACKWARD, dev.kevo.task.op.Operators.LOG_SOFTMAX_BACKWARD,
                    dev.kevo.task.op.Operators.CROSS_ENTROPY)) {
                assertTrue(dev.kevo.task.op.Task.unjudgedTensors(op).isEmpty(), op.id());
                assertTrue(help.matches("(?s).*--op=OP The operator to judge: [^(]*\\b" + op.id() + "\\b.*"),
                        command + " --help: " + op.id());
            }
        }
    }

    /** Help names only options the command has, and example campaigns a reader can open. */
    @Test
    void helpNamesOnlyWhatExists() {
        assertFalse(kevo("reeval", "--help").out().contains("--devices"));
        for (String command : List.of("evolve", "eval", "check", "show", "lineage", "reeval", "report", "export")) {
            java.util.regex.Matcher campaigns = java.util.regex.Pattern
                    .compile("mutations/[A-Za-z0-9_.-]*[A-Za-z0-9](/[A-Za-z0-9_.-]*[A-Za-z0-9])?")
                    .matcher(kevo(command, "--help").out());
            while (campaigns.find()) {
                Path named = TestFiles.root().resolve(campaigns.group());
                assertTrue(Files.exists(named) || Files.exists(named.resolveSibling(named.getFileName() + ".json")),
                        command + " --help: " + campaigns.group());
            }
        }
    }

    @Test
    void checkRejectsAnArchitectureThatIsNotSmXx() {
        assertUsageError(kevo("check", "--arch", "hopper", SEED), "kevo check", "--arch 'hopper': expected sm_XX");
    }

    @NeedsNvrtc
    @Test
    void checkSaysAnArchitectureNvrtcDoesNotKnowIsTheOptionsFault() {
        assertUsageError(kevo("check", "--arch", "sm_999", SEED), "kevo check",
                "--arch sm_999: NVRTC " );
    }

    @Test
    void checkOfAFolderSaysItIsAFolder() {
        Path seeds = TestFiles.root().resolve("seeds");
        Outcome o = kevo("check", seeds.toString());
        assertEquals(2, o.code(), o.err());
        assertEquals("kevo: " + seeds + ": a folder, not a kernel file (name its files: " + seeds.resolve("*.cu") + ")",
                o.err().strip());
    }

    @Test
    void aCampaignFolderThatDoesNotExistSaysSo(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("nonexistent");
        for (String command : List.of("show", "lineage", "report")) {
            Outcome o = kevo(command, missing.toString());
            assertEquals(2, o.code(), command + ": " + o.err());
            assertEquals("kevo: " + missing + ": no such folder", o.err().strip(), command);
        }
        Outcome notACampaign = kevo("show", Files.createDirectories(dir.resolve("empty")).toString());
        assertEquals(2, notACampaign.code());
        assertTrue(notACampaign.err().contains("not a campaign folder"), notACampaign.err());
    }

    /** --nvrtc naming a missing library is an input error, not a silent fall-back to another NVRTC. */
    @Test
    void aMissingNvrtcLibraryIsAnInputError(@TempDir Path dir) {
        Path missing = dir.resolve("libnvrtc.so.13");
        Outcome o = kevo("check", "--nvrtc", missing.toString(), SEED);
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().contains("--nvrtc " + missing + ": no such file"), o.err());
    }

    @Test
    void helpListsEverySuiteAndEveryCommandItsExitCodes() throws IOException {
        String help = kevo("eval", "--help").out().replaceAll("\\s+", " ");
        String evalHelp = help.substring(help.indexOf("--suite=NAME|FILE Shapes"));
        try (Stream<Path> suites = Files.list(TestFiles.root().resolve("evaluator/suites"))) {
            for (Path suite : suites.toList()) {
                String name = suite.getFileName().toString().replaceFirst("\\.yaml$", "");
                assertTrue(evalHelp.matches(".*\\b" + name + "\\b.*"), name + " in: " + evalHelp);
            }
        }
        for (String command : List.of("evolve", "eval", "check", "show", "lineage", "reeval", "report", "export")) {
            String commandHelp = kevo(command, "--help").out();
            assertTrue(commandHelp.contains("Exit codes:\n    0   "), command + ": " + commandHelp);
            assertTrue(commandHelp.contains("\n   70   internal error"), command + ": " + commandHelp);
        }
        String reeval = kevo("reeval", "--help").out().replaceAll("\\s+", " ");
        assertTrue(reeval.contains("--nvrtc=LIB NVRTC library to use"), reeval);
    }

    @Test
    void evalSettingsAndInputSeedHaveNamesOfTheirOwnAndKeepTheOldOnes() {
        // evolve's --config is a campaign; eval's and check's is evaluation settings: one word, one meaning.
        String help = kevo("eval", "--help").out();
        assertTrue(help.contains("--eval-config") && help.contains("--input-seed"), help);
        Outcome old = kevo("check", "--config", "/nonexistent/eval.yaml", SEED);
        Outcome renamed = kevo("check", "--eval-config", "/nonexistent/eval.yaml", SEED);
        assertEquals(2, renamed.code(), renamed.err());
        assertEquals(renamed.code(), old.code(), old.err());
        assertEquals(renamed.err(), old.err());
    }
}
