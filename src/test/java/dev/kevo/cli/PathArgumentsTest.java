package dev.kevo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.TestJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * One rule for relative paths: what kevo reads is looked for in the working directory, then in kevo's home; what it
 * writes stays in the working directory. Checked on the rule itself, on every path argument of every command, and on
 * kevo run from a folder outside the checkout.
 */
class PathArgumentsTest {

    private static final Path ROOT = TestFiles.root().toAbsolutePath().normalize();

    @Test
    void aReadPathIsTheWorkingDirectorysThenKevoHomes(@TempDir Path dir) throws IOException {
        Path cwd = Files.createDirectories(dir.resolve("cwd"));
        Path home = Files.createDirectories(dir.resolve("home"));
        Files.createDirectories(home.resolve("config"));
        Files.writeString(home.resolve("config/default.yaml"), "home's");
        Files.createDirectories(home.resolve("mutations/c"));
        Path given = Path.of("config/default.yaml");
        assertEquals(home.resolve(given), PathArguments.resolve(given, cwd, home), "only in kevo's home");
        Files.createDirectories(cwd.resolve("config"));
        Files.writeString(cwd.resolve("config/default.yaml"), "the user's own");
        assertEquals(given, PathArguments.resolve(given, cwd, home), "the working directory's comes first");
        assertEquals(Path.of("nowhere.yaml"), PathArguments.resolve(Path.of("nowhere.yaml"), cwd, home),
                "neither: as typed, so that the error names what the user wrote");
        assertEquals(home.resolve("mutations/c/g0001-i0-c0"),
                PathArguments.resolve(Path.of("mutations/c/g0001-i0-c0"), cwd, home), "a mutant as DIR/ID");
        assertEquals(dir.resolve("abs"), PathArguments.resolve(dir.resolve("abs"), cwd, home));
    }

    /**
     * Every Path argument of every command is read by the rule unless it is one of the outputs, which opt out: a new
     * output that forgot would write into kevo's home when the working directory lacks the file.
     */
    @Test
    void everyPathThatKevoWritesOptsOutOfTheRule() {
        Set<String> outputs = new TreeSet<>();
        Set<String> inputs = new TreeSet<>();
        CommandLine cli = new CommandLine(KevoCommand.class);
        for (CommandLine sub : cli.getSubcommands().values()) {
            List<ArgSpec> args = new ArrayList<>(sub.getCommandSpec().args());
            for (ArgSpec arg : args) {
                boolean path = arg.type() == Path.class || arg.auxiliaryTypes()[0] == Path.class;
                if (!path) {
                    continue;
                }
                String name = sub.getCommandName() + " " + (arg instanceof OptionSpec o ? o.longestName()
                        : arg.paramLabel());
                boolean output = arg.converters().length > 0 && arg.converters()[0] instanceof PathArguments.Output;
                (output ? outputs : inputs).add(name);
            }
        }
        assertEquals(Set.of("eval --json", "export --out", "report --out"), outputs);
        assertTrue(inputs.containsAll(Set.of("evolve --config", "evolve --resume", "show CAMPAIGN", "check FILE",
                "eval --eval-config", "export FILE|DIR|DIR/ID", "report --compare")), inputs.toString());
    }

    /** kevo from a folder outside the checkout: the sample campaign is found in its home, the page is written here. */
    @Test
    void fromAnotherDirectoryTheShippedFilesAreFoundAndOutputsStayThere(@TempDir Path cwd) throws Exception {
        Run show = kevo(cwd, "show", "mutations/default-h100");
        assertEquals(0, show.code(), show.output());
        assertTrue(show.output().startsWith("campaign " + ROOT.resolve("mutations/default-h100")), show.output());
        Run report = kevo(cwd, "report", "mutations/default-h100", "--out", "page.html");
        assertEquals(0, report.code(), report.output());
        assertTrue(Files.isRegularFile(cwd.resolve("page.html")), report.output());
        Run check = kevo(cwd, "check", "--eval-config", "config/eval.yaml", "--suite", "quick", "missing.cu");
        assertEquals(2, check.code(), check.output());
        assertTrue(check.output().contains("kevo: missing.cu: no such file"), check.output());
        assertFalse(Files.exists(ROOT.resolve("page.html")));
    }

    private record Run(int code, String output) {
    }

    /** kevo in its own JVM, started in {@code cwd} with the checkout as KEVO_HOME, as bin/kevo starts it. */
    private static Run kevo(Path cwd, String... args) throws Exception {
        List<String> command = TestJvm.nativeCommand(Main.class, args);
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().put("KEVO_HOME", ROOT.toString());
        pb.environment().put("KEVO_CACHE", "off");
        Process p = pb.start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "kevo " + String.join(" ", args) + " finished");
        return new Run(p.exitValue(), output);
    }
}
