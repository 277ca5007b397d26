package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.DeviceInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How many srun workers an allocation gets, and where, from the variables Slurm sets; no cluster needed. */
class SlurmAllocationTest {
    private static final Map<String, List<String>> LISTS = Map.of("gpu[01-02]", List.of("gpu01", "gpu02"));

    private static SlurmAllocation of(Map<String, String> env) {
        return SlurmAllocation.fromEnvironment(env, LISTS::get);
    }

    @Test
    void oneWorkerPerGpuSpreadOverTheNodes() {
        SlurmAllocation a = of(Map.of("SLURM_JOB_ID", "77", "SLURM_JOB_NODELIST", "gpu[01-02]",
                "SLURM_GPUS_PER_NODE", "h100:2", "SLURM_MEM_PER_NODE", "64000"));
        List<SrunLauncher> steps = a.launchers(Optional.empty(), Optional.of("gpu:1"), List.of("--cpus-per-task=4"),
                true);
        assertEquals(List.of("gpu01", "gpu02", "gpu01", "gpu02"), steps.stream().map(SrunLauncher::node).toList());
        // Two steps a node: each asks half the node's memory; the user's options come last, so they win.
        assertEquals(List.of("srun", "--jobid=77", "--nodes=1", "--ntasks=1", "--nodelist=gpu02", "--exact",
                "--cpus-per-task=1", "--unbuffered", "--kill-on-bad-exit=1", "--job-name=kevo-worker-3",
                "--gres=gpu:1", "--mem=32000M", "--cpus-per-task=4", "kevo", "worker"),
                steps.get(3).command(List.of("kevo", "worker")));
    }

    @Test
    void theGpuCountComesFromWhicheverVariableTheAllocationSet() {
        assertEquals(Optional.of(3), of(Map.of("SLURM_JOB_ID", "1", "SLURM_GPUS_ON_NODE", "3")).gpusPerNode());
        assertEquals(Optional.of(2), of(Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_GPUS", "4,5")).gpusPerNode());
        assertEquals(Optional.of(4), of(Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "gpu[01-02]",
                "SLURM_GPUS", "8")).gpusPerNode());
        assertEquals(2, of(Map.of("SLURM_JOB_ID", "1")).launchers(Optional.of(2), Optional.empty(), List.of(), true)
                .size(), "an explicit count needs no GPU variable");
    }

    @Test
    void plainNodeListsNeedNoScontrol() {
        assertEquals(List.of("localhost"), SlurmAllocation.scontrolHostnames("localhost"));
        assertEquals(List.of("gpu01", "gpu-b.x"), SlurmAllocation.scontrolHostnames("gpu01,gpu-b.x"));
    }

    @Test
    void outsideAnAllocationOrWithoutGpusIsOneClearInputError() {
        KevoException outside = assertThrows(KevoException.class, () -> of(Map.of()));
        assertEquals(KevoException.Kind.INPUT, outside.kind());
        assertTrue(outside.getMessage().contains("not inside a Slurm allocation"), outside.getMessage());
        KevoException none = assertThrows(KevoException.class, () -> of(Map.of("SLURM_JOB_ID", "5"))
                .launchers(Optional.empty(), Optional.of("gpu:1"), List.of(), true));
        assertTrue(none.getMessage().contains("slurm:N"), none.getMessage());
    }

    @Test
    void aCancelledStepIsReclaimedAndACrashedCandidateIsNot() {
        SrunLauncher step = new SrunLauncher("9", "n1", 0, Optional.empty(), List.of(), true);
        assertTrue(step.reclaimed("srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
                + "srun: error: n1: task 0: Killed"));
        assertTrue(step.reclaimed("slurmstepd: error: *** STEP 9.3 ON n1 CANCELLED AT 2026-01-01T00:00:00 DUE TO "
                + "PREEMPTION ***"));
        assertFalse(step.reclaimed("srun: error: n1: task 0: Segmentation fault (core dumped)\n"
                + "srun: launch/slurm: _step_signal: Terminating StepId=9.3"));
        assertFalse(Launcher.LOCAL.reclaimed("srun: Job step aborted"), "a local worker is never the cluster's");
    }

    @Test
    void aRecordNamesTheNodeAndThePhysicalGpu() {
        DeviceInfo h100 = DeviceInfo.builder().name("NVIDIA H100").pciBusId("0000:01").ccMajor(9).sms(132).build();
        assertEquals("node1 3 NVIDIA H100", Message.Ready.here(h100, 1, "13", "nvrtc", 1,
                Map.of("SLURMD_NODENAME", "node1", "CUDA_VISIBLE_DEVICES", "3")).judgedOn());
        assertEquals("0 NVIDIA H100", Message.Ready.here(h100, 1, "13", "nvrtc", 1, Map.of()).judgedOn());
    }
}
