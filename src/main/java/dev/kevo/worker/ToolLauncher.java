package dev.kevo.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.function.UnaryOperator;

/**
 * A worker on this host started under a CUDA tool (compute-sanitizer, Nsight Compute). Its frames go over a
 * connection the worker opens back ({@link ConnectBack}), so nothing the tool might print can land between them, and
 * the tool's exit status is kept for the caller to read once the worker is gone. (Slurm steps are never run under a
 * tool: its report would be written on the node.)
 */
final class ToolLauncher implements Launcher {
    private final UnaryOperator<List<String>> tool;
    private volatile Process process;

    /** @param tool the tool's command line around the worker's */
    ToolLauncher(UnaryOperator<List<String>> tool) {
        this.tool = tool;
    }

    @Override
    public List<String> command(List<String> worker) {
        // No class-data archive: a JVM whose archive does not match its class path writes a new one as it exits,
        // which fails under compute-sanitizer and turns a clean run into an error exit. Start time matters little here.
        List<String> connecting = new ArrayList<>(worker.stream().filter(a -> !a.equals("-XX:+AutoCreateSharedArchive")
                && !a.startsWith("-XX:SharedArchiveFile=")).toList());
        // This host, whatever Slurm variables this process inherited: a worker's default is srun's host.
        connecting.add("--connect-host=localhost");
        return tool.apply(connecting);
    }

    @Override
    public void started(Process started) {
        process = started;
    }

    /** The tool's exit status, once it has ended; empty while it runs or before it started. */
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

    /** The worker is the tool's child: killing only the tool would leave it holding the GPU. */
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
