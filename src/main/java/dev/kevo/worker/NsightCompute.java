package dev.kevo.worker;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Nsight Compute's command line, {@code ncu}, which kevo runs a worker under to profile a parent's launches for a
 * model ({@link ProfilerPass}).
 *
 * @param executable the ncu binary
 */
public record NsightCompute(Path executable) {
    /** The environment variable that names the binary. */
    public static final String VARIABLE = "KEVO_NCU";
    static final String INSTALL_HINT = "install Nsight Compute (the CUDA toolkit's ncu), put it on the PATH or set "
            + VARIABLE;
    private static final ToolBinary BINARY = new ToolBinary("ncu", VARIABLE, INSTALL_HINT);
    private static final List<Path> FALLBACKS = List.of(Path.of("/usr/local/cuda/bin/ncu"));

    static final String DRAM = "dram__throughput.avg.pct_of_peak_sustained_elapsed";
    static final String OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active";
    static final String DURATION = "gpu__time_duration.sum";
    /** The warp-state reasons Nsight Compute's WarpStateStats section reports, by the name in their metric. */
    static final List<String> STALLS = List.of("long_scoreboard", "short_scoreboard", "barrier", "membar", "wait",
            "math_pipe_throttle", "lg_throttle", "mio_throttle", "not_selected", "dispatch_stall", "drain",
            "imc_miss", "branch_resolving", "no_instruction", "sleeping", "tex_throttle", "misc");

    static String stallMetric(String reason) {
        return "smsp__average_warps_issue_stalled_" + reason + "_per_issue_active.ratio";
    }

    /** The one on the PATH, under {@code $CUDA_HOME} or {@code $CUDA_PATH}, or in {@code /usr/local/cuda}. */
    public static NsightCompute locate(Map<String, String> env) {
        return new NsightCompute(BINARY.locate(env, FALLBACKS));
    }

    /** The one {@link #locate} would use, or empty where there is none. */
    public static Optional<NsightCompute> find(Map<String, String> env) {
        return BINARY.find(env, FALLBACKS).map(NsightCompute::new);
    }

    /**
     * The command that runs {@code worker} under ncu, its CSV in {@code log}, profiling only launches of {@code
     * kernels} (kevo's input generator runs there too). Every option is there for a reason of kevo's:
     * <ul>
     * <li>{@code --clock-control none}: the clocks as every timing of kevo's sees them (ncu would lock them at base);
     * <li>{@code --csv --page raw --metrics}: the few numbers the prompt shows, one row per launch, and no section
     * that costs more replays;
     * <li>{@code --log-file}: the report apart from the worker's output;
     * <li>{@code --target-processes application-only}: the worker starts no other process.
     * </ul>
     */
    public List<String> command(Path log, List<String> kernels, List<String> worker) {
        List<String> metrics = new ArrayList<>(List.of(DRAM, OCCUPANCY, DURATION));
        STALLS.forEach(r -> metrics.add(stallMetric(r)));
        // Kernel names are C identifiers (the contract's), so they need no escaping in ncu's regular expression.
        String names = String.join("|", kernels);
        List<String> command = new ArrayList<>(List.of(executable.toString(), "--clock-control", "none",
                "--target-processes", "application-only", "--kernel-name", "regex:^(" + names + ")$",
                "--csv", "--page", "raw", "--metrics", String.join(",", metrics),
                "--log-file", log.toString()));
        command.addAll(worker);
        return command;
    }

    public String version() {
        return ToolBinary.version(executable);
    }
}
