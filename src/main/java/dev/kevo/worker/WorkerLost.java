package dev.kevo.worker;

/**
 * The cluster took a worker away in the middle of a candidate (its Slurm step was cancelled or preempted, or its
 * node failed): the candidate did nothing wrong and has no verdict; it is to be judged again by another worker.
 */
public final class WorkerLost extends RuntimeException {
    public WorkerLost(String message) {
        super(message);
    }
}
