package dev.kevo.worker;

import dev.kevo.KevoException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The Slurm allocation this process runs in (inside sbatch, or a shell of salloc), and how many GPU workers it
 * holds: one per GPU it was given, spread over its nodes.
 *
 * @param jobId SLURM_JOB_ID
 * @param nodes its nodes, expanded from SLURM_JOB_NODELIST
 * @param gpusPerNode GPUs on each node, from the variables Slurm sets for {@code --gpus-per-node},
 *                    {@code --gres=gpu:N} and {@code --gpus}; empty when it says none
 * @param memoryPerNodeMb the job's memory on each node (SLURM_MEM_PER_NODE), empty when it asked none
 */
public record SlurmAllocation(String jobId, List<String> nodes, Optional<Integer> gpusPerNode,
                              Optional<Long> memoryPerNodeMb) {

    public SlurmAllocation {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw KevoException.input("Slurm allocation " + jobId + " has no nodes");
        }
    }

    /** The allocation named by {@code env}; {@code hostnames} expands a compressed node list ("gpu[01-04]"). */
    public static SlurmAllocation fromEnvironment(Map<String, String> env, Function<String, List<String>> hostnames) {
        String job = env.get("SLURM_JOB_ID");
        if (job == null || job.isBlank()) {
            throw KevoException.input("--workers slurm: not inside a Slurm allocation (no SLURM_JOB_ID); run kevo in "
                    + "an sbatch script or an salloc shell");
        }
        String list = env.getOrDefault("SLURM_JOB_NODELIST", env.getOrDefault("SLURM_NODELIST", ""));
        List<String> nodes = list.isBlank() ? List.of(env.getOrDefault("SLURMD_NODENAME", "localhost"))
                : hostnames.apply(list);
        int count = nodes.size();
        Optional<Integer> perNode = count("SLURM_GPUS_PER_NODE", env)
                .or(() -> count("SLURM_GPUS_ON_NODE", env))
                .or(() -> Optional.ofNullable(env.get("SLURM_JOB_GPUS")).filter(s -> !s.isBlank())
                        .map(s -> s.split(",").length))
                .or(() -> count("SLURM_GPUS", env).map(total -> Math.max(1, total / count)));
        Optional<Long> memory = Optional.ofNullable(env.get("SLURM_MEM_PER_NODE")).filter(s -> s.matches("\\d+"))
                .map(Long::valueOf);
        return new SlurmAllocation(job.strip(), nodes, perNode, memory);
    }

    /** "4" or "h100:4" (a typed request) as 4. */
    private static Optional<Integer> count(String name, Map<String, String> env) {
        String value = env.get(name);
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String n = value.substring(value.lastIndexOf(':') + 1).strip();
        try {
            return Optional.of(Integer.parseInt(n));
        } catch (NumberFormatException e) {
            throw KevoException.input("--workers slurm: " + name + "='" + value + "' is not a GPU count");
        }
    }

    /**
     * One launcher per worker: {@code workers} of them when given, else one per GPU of the allocation, handed to
     * the nodes in turn so that each node's GPUs fill evenly. {@code connectBack}: see {@link SrunLauncher}.
     */
    public List<SrunLauncher> launchers(Optional<Integer> workers, Optional<String> gres, List<String> extra,
                                        boolean connectBack) {
        int total = workers.orElseGet(() -> gpusPerNode.map(g -> g * nodes.size()).orElseThrow(() ->
                KevoException.input("--workers slurm: cannot tell how many GPUs allocation " + jobId + " holds (no "
                        + "SLURM_GPUS_PER_NODE, SLURM_GPUS_ON_NODE, SLURM_JOB_GPUS or SLURM_GPUS); allocate with "
                        + "--gpus-per-node=N, or say --workers slurm:N")));
        if (total < 1) {
            throw KevoException.input("--workers slurm: allocation " + jobId + " holds no GPUs; allocate with "
                    + "--gpus-per-node=N, or say --workers slurm:N");
        }
        // A step asks for its share of the node's memory: srun would otherwise take SLURM_MEM_PER_NODE, all of it, for
        // the first step, and where memory is tracked the node's other steps would wait for it. Given options last.
        int perNode = (total + nodes.size() - 1) / nodes.size();
        List<String> options = new ArrayList<>();
        memoryPerNodeMb.ifPresent(mb -> options.add("--mem=" + Math.max(1, mb / perNode) + "M"));
        options.addAll(extra);
        List<SrunLauncher> launchers = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            launchers.add(new SrunLauncher(jobId, nodes.get(i % nodes.size()), i, gres, options, connectBack));
        }
        return launchers;
    }

    /**
     * Expands a node list: plain names separated by commas as they are, ranges ("gpu[01-04]") with {@code scontrol
     * show hostnames}, as every Slurm installation can.
     */
    public static List<String> scontrolHostnames(String nodeList) {
        if (nodeList.matches("[\\w.-]+(,[\\w.-]+)*")) {
            return List.of(nodeList.split(","));
        }
        try {
            Process p = new ProcessBuilder("scontrol", "show", "hostnames", nodeList).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw KevoException.environment("scontrol show hostnames " + nodeList + " failed: "
                        + out.strip().lines().reduce((a, b) -> b).orElse("exit " + p.exitValue()));
            }
            return Arrays.stream(out.split("\\s+")).filter(s -> !s.isBlank()).toList();
        } catch (IOException e) {
            throw KevoException.environment("--workers slurm: cannot run scontrol (" + e.getMessage() + "); is Slurm "
                    + "on PATH?");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KevoException.environment("interrupted while asking scontrol for the allocation's nodes");
        }
    }
}
