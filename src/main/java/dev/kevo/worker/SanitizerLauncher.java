package dev.kevo.worker;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * A worker started under compute-sanitizer, wherever {@code inner} starts workers. Its frames go over a connection
 * the worker opens back ({@link ConnectBack}), so nothing the sanitizer might print can land between them, and the
 * sanitizer's exit status is kept for the pass to read once the worker is gone.
 */
final class SanitizerLauncher implements Launcher {
    private final ComputeSanitizer sanitizer;
    private final SanitizerTool tool;
    private final Path log;
    private final Launcher inner;
    private volatile Process process;

    SanitizerLauncher(ComputeSanitizer sanitizer, SanitizerTool tool, Path log, Launcher inner) {
        this.sanitizer = sanitizer;
        this.tool = tool;
        this.log = log;
        this.inner = inner;
    }

    @Override
    public List<String> command(List<String> worker) {
        List<String> connecting = new ArrayList<>(worker);
        if (inner instanceof Launcher.Local) {
            // On this host, whatever Slurm variables this process inherited: the worker's default is srun's host.
            connecting.add("--connect-host=localhost");
        }
        return inner.command(sanitizer.command(tool, log, connecting));
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

    @Override
    public String where() {
        return inner.where();
    }

    @Override
    public boolean reclaimed(String stderr) {
        return inner.reclaimed(stderr);
    }

    @Override
    public boolean expendable() {
        return inner.expendable();
    }

    /** The worker is the sanitizer's child: killing only the sanitizer would leave it holding the GPU. */
    @Override
    public void stop(Process running) {
        running.descendants().forEach(ProcessHandle::destroyForcibly);
        inner.stop(running);
    }

    @Override
    public boolean connectsBack() {
        return true;
    }
}
