package dev.kevo.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * A worker as one Slurm job step inside an existing allocation: {@code srun} pinned to one node, holding one GPU
 * (or no GRES at all, for workers that need none). Its frames go over a connection the worker opens back to this
 * process ({@link ConnectBack}: srun's relay of stdin and stdout holds every frame over 1 KB for 44 ms), or, with
 * {@code connectBack} false, through srun's stdin and stdout unchanged. Inside the step Slurm sets
 * CUDA_VISIBLE_DEVICES to the GPU it gave, which the worker sees as device 0.
 *
 * @param jobId the allocation (SLURM_JOB_ID of sbatch or salloc)
 * @param node the node this worker's steps run on
 * @param slot this worker's number, for its step's name
 * @param gres what each step holds, e.g. {@code gpu:1}; empty for none
 * @param extra more srun options (a memory share, then KEVO_SRUN_ARGS, e.g. {@code --cpus-per-task=4}); srun takes
 *              the last of a repeated option, so these override the defaults. One CPU by default: srun of
 *              some versions (before 22.05, from 23.11) takes the batch job's SLURM_CPUS_PER_TASK for every step.
 * @param connectBack frames over a connection back ({@code KEVO_SRUN_FRAMES=socket}, the default) rather than
 *                    through srun's stdio ({@code KEVO_SRUN_FRAMES=stdio}, where nodes cannot reach this host)
 */
public record SrunLauncher(String jobId, String node, int slot, Optional<String> gres, List<String> extra,
                           boolean connectBack)
        implements Launcher {

    /**
     * What srun and slurmstepd write when the cluster ends a step (scancel, preemption, a time limit, a failed
     * node): srun's "Job step aborted" comes whenever the controller ended the step; slurmstepd's "*** STEP ...
     * CANCELLED" line may or may not get through before the step's output closes. A candidate that kills its worker
     * shows only as "task 0: Segmentation fault", "Killed" or an exit code, with no abort.
     */
    private static final Pattern RECLAIMED = Pattern.compile(
            "srun: Job step aborted|\\*\\*\\* (STEP|JOB) \\S+ ON \\S+ CANCELLED AT|DUE TO PREEMPTION|"
                    + "Node failure on|NODE_FAIL");
    private static final long TERM_GRACE_SECONDS = 10;

    public SrunLauncher {
        extra = List.copyOf(extra);
    }

    @Override
    public List<String> command(List<String> worker) {
        List<String> command = new ArrayList<>(List.of("srun", "--jobid=" + jobId, "--nodes=1", "--ntasks=1",
                "--nodelist=" + node, "--exact", "--cpus-per-task=1", "--unbuffered", "--kill-on-bad-exit=1",
                "--job-name=kevo-worker-" + slot));
        gres.ifPresent(g -> command.add("--gres=" + g));
        command.addAll(extra);
        command.addAll(worker);
        return command;
    }

    @Override
    public String where() {
        return "node " + node;
    }

    @Override
    public boolean reclaimed(String stderr) {
        return RECLAIMED.matcher(stderr).find();
    }

    @Override
    public boolean expendable() {
        return true;
    }

    @Override
    public boolean connectsBack() {
        return connectBack;
    }

    /**
     * SIGTERM first: srun then cancels its step, so the GPU is given back to the allocation at once and the next
     * step can have it. A SIGKILLed srun leaves slurmstepd to notice, later.
     */
    @Override
    public void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(TERM_GRACE_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
