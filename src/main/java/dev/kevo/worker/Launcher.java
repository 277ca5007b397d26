package dev.kevo.worker;

import java.util.List;

/**
 * Where a worker process runs and how it is started and stopped: on this host, or as a step of a Slurm allocation.
 * Either way the worker speaks the same frames, over the started process's stdin and stdout or over a connection it
 * opens back ({@link ConnectBack}), so the supervisor's deadlines, restarts and verdicts do not depend on where it
 * runs.
 */
public interface Launcher {

    /** Workers as child processes of this one. */
    Launcher LOCAL = new Local();

    /** The command that starts {@code worker}, wrapped for where it runs. */
    List<String> command(List<String> worker);

    /** Where the worker runs, for messages: "this host", "node gpu07". */
    String where();

    /**
     * Whether a worker that ended with {@code stderr} was taken away by the cluster (a cancelled or preempted step,
     * a failed node) rather than by its candidate: its candidate is then judged again, not given a verdict.
     */
    boolean reclaimed(String stderr);

    /**
     * Whether a worker that cannot start is left out (its pool goes on with the others) rather than fatal: a
     * cluster node that does not start its step should not stop a campaign that other nodes can carry.
     */
    boolean expendable();

    /** Told the process it started, once it runs (a sanitizer's launcher reads its exit status). */
    default void started(Process process) {
    }

    /** Stops the worker's process now, the candidate in it or not. */
    void stop(Process process);

    /** Whether the worker's frames go over a connection it opens back ({@link ConnectBack}), not its stdin/stdout. */
    boolean connectsBack();

    /** A worker in a child process of this one, killed outright. */
    record Local() implements Launcher {
        @Override
        public List<String> command(List<String> worker) {
            return List.copyOf(worker);
        }

        @Override
        public String where() {
            return "this host";
        }

        @Override
        public boolean reclaimed(String stderr) {
            return false;
        }

        @Override
        public boolean expendable() {
            return false;
        }

        @Override
        public void stop(Process process) {
            process.destroyForcibly();
        }

        @Override
        public boolean connectsBack() {
            return false;
        }
    }
}
