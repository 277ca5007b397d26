package dev.kevo.worker;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A worker on this host started under compute-sanitizer. Its frames go over a connection the worker opens back
 * ({@link ConnectBack}), so nothing the sanitizer might print can land between them, and the sanitizer's exit status
 * is kept for the pass to read once the worker is gone. (Slurm steps are not sanitized: the report would be written
 * on the node.)
 */
final class SanitizerLauncher implements Launcher {
    private final ComputeSanitizer sanitizer;
    private final SanitizerTool tool;
    private final Path log;
    private volatile Process process;

    SanitizerLauncher(ComputeSanitizer sanitizer, SanitizerTool tool, Path log) {
        this.sanitizer = sanitizer;
        this.tool = tool;
        this.log = log;
    }

    @Override
    public List<String> command(List<String> worker) {
        // No class-data archive: a JVM whose archive does not match its class path writes a new one as it exits,
        // which fails under the sanitizer and turns a clean run into an error exit. Start time matters little here.
        List<String> connecting = new ArrayList<>(worker.stream().filter(a -> !a.equals("-XX:+AutoCreateSharedArchive")
                && !a.startsWith("-XX:SharedArchiveFile=")).toList());
        // This host, whatever Slurm variables this process inherited: a worker's default is srun's host.
        connecting.add("--connect-host=localhost");
        return sanitizer.command(tool, log, connecting);
    }

    @Override
    public void started(Process started) {
        process = started;
    }

    /** The sanitizer's exit status, once it has ended; empty while it runs or before it started. */
    OptionalInt exitCode() {
        Process p = process;
        return p == null || p.isAlive() ? OptionalInt.empty() : OptionalInt.of(p.exitValue());
    }

    // Where it runs, and how it ends, are a local worker's.
    @Override
    public String where() {
        return LOCAL.where();
    }

    @Override
    public boolean reclaimed(String stderr) {
        return LOCAL.reclaimed(stderr);
    }

    @Override
    public boolean expendable() {
        return LOCAL.expendable();
    }

    /** The worker is the sanitizer's child: killing only the sanitizer would leave it holding the GPU. */
    @Override
    public void stop(Process running) {
        running.descendants().forEach(ProcessHandle::destroyForcibly);
        running.destroyForcibly();
    }

    @Override
    public boolean connectsBack() {
        return true;
    }
}
