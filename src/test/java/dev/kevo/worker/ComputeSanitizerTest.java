package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where kevo finds compute-sanitizer, what it says when it finds none, and the command line it runs a worker with. */
class ComputeSanitizerTest {
    private static final List<String> WORKER = List.of("/jdk/bin/java", "-cp", "kevo.jar", "dev.kevo.cli.Main",
            "worker", "--device", "0", "--sanitize-run");

    private static Path executable(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path exe = dir.resolve("compute-sanitizer");
        Files.writeString(exe, "#!/bin/sh\necho 'Version 2025.3.1.0'\n");
        Files.setPosixFilePermissions(exe, PosixFilePermissions.fromString("rwxr-xr-x"));
        return exe;
    }

    private static String after(List<String> command, String option) {
        int i = command.indexOf(option);
        assertTrue(i >= 0 && i + 1 < command.size(), option + " in " + command);
        return command.get(i + 1);
    }

    @Test
    void theCommandRunsTheWorkerUnderOneToolWithKevosOptions() {
        ComputeSanitizer cs = new ComputeSanitizer(Path.of("/usr/local/cuda/bin/compute-sanitizer"));
        Path log = Path.of("/tmp/kevo-memcheck-7.log");
        for (SanitizerTool tool : SanitizerTool.values()) {
            List<String> c = cs.command(tool, log, WORKER);
            assertEquals("/usr/local/cuda/bin/compute-sanitizer", c.getFirst());
            assertEquals(tool.id(), after(c, "--tool"));
            assertEquals(log.toString(), after(c, "--log-file"));
            assertEquals(Integer.toString(ComputeSanitizer.FINDINGS_EXIT), after(c, "--error-exitcode"));
            assertEquals("no", after(c, "--report-api-errors"));
            assertEquals("kernel", after(c, "--destroy-on-device-error"));
            assertEquals("application-only", after(c, "--target-processes"));
            assertEquals(Integer.toString(ComputeSanitizer.PRINT_LIMIT), after(c, "--print-limit"));
            assertFalse(c.contains("--kernel-name") || c.contains("--kernel-name-exclude"),
                    "no filter: every kernel that runs is checked");
            assertEquals(tool == SanitizerTool.MEMCHECK, c.contains("--padding"), tool.id());
            // Everything after "--" is the worker's, untouched.
            assertEquals(WORKER, c.subList(c.indexOf("--") + 1, c.size()));
        }
        assertEquals("analysis", after(cs.command(SanitizerTool.RACECHECK, log, WORKER), "--racecheck-report"));
        assertEquals("65536", after(cs.command(SanitizerTool.MEMCHECK, log, WORKER), "--padding"));
    }

    @Test
    void aPercentInTheLogPathIsNotAnEscape() {
        List<String> c = new ComputeSanitizer(Path.of("cs")).command(SanitizerTool.INITCHECK,
                Path.of("/tmp/100%/k.log"), WORKER);
        assertEquals("/tmp/100%%/k.log", after(c, "--log-file"));
    }

    @Test
    void aLocalWorkerUnderTheSanitizerConnectsBackToThisHost() {
        ComputeSanitizer cs = new ComputeSanitizer(Path.of("cs"));
        ToolLauncher launcher = new ToolLauncher(w -> cs.command(SanitizerTool.SYNCCHECK, Path.of("l.log"), w));
        assertTrue(launcher.connectsBack(), "frames never share a stream with the sanitizer's output");
        List<String> c = launcher.command(List.of("java", "-XX:+AutoCreateSharedArchive", "-XX:SharedArchiveFile=w.jsa",
                "worker", "--connect-port=4000"));
        // and without a class-data archive, which a JVM rewrites at exit, failing under the sanitizer
        assertEquals(List.of("java", "worker", "--connect-port=4000", "--connect-host=localhost"),
                c.subList(c.indexOf("--") + 1, c.size()));
        assertTrue(launcher.exitCode().isEmpty(), "nothing started yet");
    }

    @Test
    void stoppingTheSanitizerStopsTheWorkerItStarted() throws Exception {
        // A shell standing in for compute-sanitizer, its sleep for the worker JVM.
        Process sanitizer = new ProcessBuilder("sh", "-c", "sleep 300 & wait").start();
        ToolLauncher launcher = new ToolLauncher(w -> new ComputeSanitizer(Path.of("cs"))
                .command(SanitizerTool.MEMCHECK, Path.of("l.log"), w));
        launcher.started(sanitizer);
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (sanitizer.descendants().findAny().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        ProcessHandle worker = sanitizer.descendants().findFirst().orElseThrow();
        launcher.stop(sanitizer);
        assertTrue(sanitizer.waitFor(5, java.util.concurrent.TimeUnit.SECONDS));
        worker.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertFalse(worker.isAlive(), "the sanitizer's child is gone too");
        assertTrue(launcher.exitCode().isPresent());
    }

    @Test
    void theNamedBinaryIsUsedAndOneThatIsNotThereIsAnInputError(@TempDir Path dir) throws IOException {
        Path exe = executable(dir.resolve("cuda/bin"));
        assertEquals(exe, ComputeSanitizer.locate(Map.of(ComputeSanitizer.VARIABLE, exe.toString(),
                "PATH", "/nowhere")).executable());
        KevoException e = assertThrows(KevoException.class, () -> ComputeSanitizer.locate(Map.of(
                ComputeSanitizer.VARIABLE, dir.resolve("missing").toString(), "PATH", exe.getParent().toString())));
        assertEquals(ExitCode.USAGE, e.kind().exitCode());
        assertTrue(e.getMessage().contains(ComputeSanitizer.VARIABLE) && e.getMessage().contains("missing"),
                e.getMessage());
    }

    @Test
    void thePathThenTheCudaHomesAreSearched(@TempDir Path dir) throws IOException {
        Path onPath = executable(dir.resolve("a"));
        Path home = executable(dir.resolve("home/bin"));
        assertEquals(onPath, ComputeSanitizer.locate(Map.of("PATH", dir.resolve("empty") + ":" + onPath.getParent(),
                "CUDA_HOME", dir.resolve("home").toString()), List.of()).executable());
        assertEquals(home, ComputeSanitizer.locate(Map.of("PATH", dir.resolve("empty").toString(),
                "CUDA_HOME", dir.resolve("home").toString()), List.of()).executable());
    }

    @Test
    void noneFoundIsAnEnvironmentErrorSayingWhereKevoLookedAndHowToPointIt(@TempDir Path dir) {
        Map<String, String> env = Map.of("PATH", dir.resolve("bin").toString(), "CUDA_HOME", dir.resolve("cuda").toString());
        Path toolkit = dir.resolve("usr/local/cuda/bin/compute-sanitizer");
        KevoException e = assertThrows(KevoException.class, () -> ComputeSanitizer.locate(env, List.of(toolkit)));
        assertEquals(ExitCode.NO_GPU, e.kind().exitCode());
        assertTrue(e.getMessage().startsWith("no compute-sanitizer found"), e.getMessage());
        assertTrue(e.getMessage().contains(ComputeSanitizer.VARIABLE), e.getMessage());
        assertTrue(e.getMessage().contains(dir.resolve("bin/compute-sanitizer").toString())
                && e.getMessage().contains(dir.resolve("cuda/bin/compute-sanitizer").toString())
                && e.getMessage().contains(toolkit.toString()), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
    }

    @Test
    void theVersionIsWhatTheBinarySays(@TempDir Path dir) throws IOException {
        Path exe = executable(dir);
        assertEquals("Version 2025.3.1.0 (" + exe + ")", new ComputeSanitizer(exe).version());
    }
}
