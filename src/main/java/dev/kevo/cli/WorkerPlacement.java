package dev.kevo.cli;

import dev.kevo.KevoException;
import dev.kevo.worker.SlurmAllocation;
import dev.kevo.worker.SrunLauncher;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** Where a command's GPU workers run: here, or as steps of the Slurm allocation it runs in ({@code --workers}). */
final class WorkerPlacement {
    private static final Pattern SLURM = Pattern.compile("slurm(?::(\\d+))?");

    @Option(names = "--workers", paramLabel = "local|slurm[:N]",
            description = "Where GPU workers run. local (default): on this host. "
                    + "slurm: inside the Slurm allocation this runs in (sbatch, salloc), one srun step per GPU of "
                    + "the allocation (slurm:N for N steps), each holding one GPU; records name the node and GPU.")
    String workers;

    @Option(names = "--slurm-gres", paramLabel = "GRES",
            description = "What each worker step holds, as srun --gres takes it. Default: gpu:1; none for steps "
                    + "without GRES. More srun options: $KEVO_SRUN_ARGS. Frames go over a connection each worker "
                    + "opens back to this host; KEVO_SRUN_FRAMES=stdio sends them through srun's stdin/stdout "
                    + "instead (slower: srun holds back larger frames).")
    String gres = "gpu:1";

    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /**
     * The worker steps, one launcher each, or empty for workers on this host; resolved before anything else so that
     * a wrong request or a missing allocation stops the command before it makes a campaign folder.
     *
     * @param fewest how many steps to start when {@code --workers} says no number (empty: one per GPU of the
     *               allocation)
     */
    Optional<List<SrunLauncher>> slurm(Map<String, String> env, Optional<Integer> fewest) {
        if (workers == null || workers.equals("local")) {
            return Optional.empty();
        }
        Matcher m = SLURM.matcher(workers);
        if (!m.matches() || (m.group(1) != null && Integer.parseInt(m.group(1)) < 1)) {
            throw OptionChecks.invalid(command, "--workers", "local, slurm or slurm:N (N at least 1)", workers);
        }
        String extra = env.getOrDefault("KEVO_SRUN_ARGS", "").strip();
        String frames = env.getOrDefault("KEVO_SRUN_FRAMES", "socket").strip();
        if (!frames.equals("socket") && !frames.equals("stdio")) {
            throw KevoException.input("KEVO_SRUN_FRAMES: socket (the default) or stdio, not '" + frames + "'");
        }
        return Optional.of(SlurmAllocation.fromEnvironment(env, SlurmAllocation::scontrolHostnames).launchers(
                Optional.ofNullable(m.group(1)).map(Integer::valueOf).or(() -> fewest),
                gres.isBlank() || gres.equals("none") ? Optional.empty() : Optional.of(gres),
                extra.isEmpty() ? List.of() : Arrays.asList(extra.split("\\s+")), frames.equals("socket")));
    }
}
