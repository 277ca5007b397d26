package dev.kevo.worker;

import dev.kevo.KevoException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * NVIDIA's compute-sanitizer, the CUDA toolkit's tool that kevo runs a worker under to find memory errors and races
 * that a kernel's outputs do not show, and the command line it is run with.
 *
 * @param executable the compute-sanitizer binary
 */
public record ComputeSanitizer(Path executable) {
    /** The environment variable that names the binary. */
    public static final String VARIABLE = "KEVO_COMPUTE_SANITIZER";
    /** How to get one kevo finds, for every message that says none was found. */
    public static final String INSTALL_HINT = "install the CUDA toolkit's compute-sanitizer, put it on the PATH or "
            + "set " + VARIABLE;
    /**
     * What compute-sanitizer exits with when the worker ended well and a tool found something: no exit code of
     * kevo's own ({@code ExitCode}), so a finding cannot pass for the worker's own status.
     */
    static final int FINDINGS_EXIT = 86;
    /** Findings printed in full; the summary still counts them all, and the first one is what a verdict names. */
    static final int PRINT_LIMIT = 10;
    /** Seconds the sanitizer waits for the worker's JVM to reach CUDA. */
    static final int LAUNCH_TIMEOUT_S = 60;
    private static final ToolBinary BINARY = new ToolBinary("compute-sanitizer", VARIABLE, INSTALL_HINT);
    private static final List<Path> FALLBACKS = List.of(Path.of("/usr/local/cuda/bin/compute-sanitizer"));

    /**
     * The binary named by {@link #VARIABLE} (one that is not there is an input error, never a fall-back to another),
     * else the first on the PATH, under {@code $CUDA_HOME} or {@code $CUDA_PATH}, or in {@code /usr/local/cuda}.
     *
     * @throws KevoException an environment error naming where kevo looked when there is none
     */
    public static ComputeSanitizer locate(Map<String, String> env) {
        return locate(env, FALLBACKS);
    }

    /** As {@link #locate(Map)}, with {@code fallbacks} where the CUDA toolkit's default folder would be. */
    static ComputeSanitizer locate(Map<String, String> env, List<Path> fallbacks) {
        return new ComputeSanitizer(BINARY.locate(env, fallbacks));
    }

    /** The one {@link #locate} would use, or empty where there is none (for tests that need one to run). */
    public static Optional<ComputeSanitizer> find(Map<String, String> env) {
        return BINARY.find(env, FALLBACKS).map(ComputeSanitizer::new);
    }

    /**
     * The command that runs {@code worker} under {@code tool}, its report in {@code log}. Every option is there for
     * a reason of kevo's:
     * <ul>
     * <li>{@code --log-file}: the report apart from the worker's own output, to be read once the worker is gone;
     * <li>{@code --error-exitcode}: a run that found something exits with its own status;
     * <li>{@code --print-limit}: a kernel with a million bad accesses costs a log of ten, not of a million;
     * <li>{@code --show-backtrace no}: host frames of the worker's JVM say nothing about the kernel;
     * <li>{@code --report-api-errors no}: the worker's own CUDA calls that fail on purpose (a probe of a limit the
     * driver refuses) are not the candidate's;
     * <li>{@code --destroy-on-device-error kernel}: a bad access ends the kernel, not the context, so the worker
     * still exits cleanly and the report is whole;
     * <li>{@code --target-processes application-only}: the worker starts no other process;
     * <li>{@code --launch-timeout}: a JVM takes longer than a native program to reach CUDA.
     * </ul>
     * No kernel filter: the one kernel of kevo's own that runs there (its input generator) must be instrumented
     * for initcheck to see it write x, and a filter by name would let a candidate's kernel named like it go
     * unchecked.
     */
    public List<String> command(SanitizerTool tool, Path log, List<String> worker) {
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--tool", tool.id(),
                "--log-file", log.toString().replace("%", "%%"),
                "--error-exitcode", Integer.toString(FINDINGS_EXIT),
                "--print-limit", Integer.toString(PRINT_LIMIT),
                "--show-backtrace", "no",
                "--report-api-errors", "no",
                "--destroy-on-device-error", "kernel",
                "--target-processes", "application-only",
                "--launch-timeout", Integer.toString(LAUNCH_TIMEOUT_S)));
        command.addAll(tool.options());
        command.add("--");
        command.addAll(worker);
        return command;
    }

    /** What {@code --version} says, its last non-blank line ("Version 2025.3.1.0 ..."), or the binary's path. */
    public String version() {
        return ToolBinary.version(executable);
    }
}
