package dev.kevo.worker;

import dev.kevo.KevoException;
import dev.kevo.eval.CandidateResult;
import dev.kevo.task.KernelFile;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.IntFunction;

/**
 * One supervised worker per device, each candidate going to whichever is free. A candidate is judged entirely
 * in one worker, against the baseline timed in that worker on that device, so a speedup never mixes devices;
 * its result names the device. The first worker's device confirms champions.
 */
public final class WorkerPool implements AutoCloseable {
    private final List<Supervisor> workers;
    private final LinkedBlockingQueue<Supervisor> free = new LinkedBlockingQueue<>();
    private final List<Message.Ready> ready;

    private WorkerPool(List<Supervisor> workers, List<Message.Ready> ready) {
        this.workers = List.copyOf(workers);
        this.ready = List.copyOf(ready);
        free.addAll(workers);
    }

    /**
     * Starts a worker on each device at once (each takes about a second: its JVM, context, the baseline's
     * check) and returns when all are ready.
     *
     * @param supervisorFor makes the (not yet started) supervisor of a device ordinal
     */
    public static WorkerPool start(List<Integer> devices, IntFunction<Supervisor> supervisorFor) {
        List<Supervisor> supervisors = devices.stream().map(supervisorFor::apply).toList();
        List<Message.Ready> ready = new ArrayList<>();
        try (ExecutorService starting = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Message.Ready>> started = supervisors.stream()
                    .map(s -> starting.submit(s::ready)).toList();
            for (Future<Message.Ready> f : started) {
                ready.add(f.get());
            }
        } catch (ExecutionException e) {
            supervisors.forEach(Supervisor::close);
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            supervisors.forEach(Supervisor::close);
            Thread.currentThread().interrupt();
            throw KevoException.environment("interrupted while starting workers");
        }
        return new WorkerPool(supervisors, ready);
    }

    /** What each worker reported when ready, in the order of the devices asked for. */
    public List<Message.Ready> ready() {
        return ready;
    }

    public int size() {
        return workers.size();
    }

    /** Judges on the first free worker, waiting for one when all are busy. */
    public CandidateResult evaluate(KernelFile file, long inputSeed) {
        Supervisor worker;
        try {
            worker = free.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KevoException.environment("interrupted while waiting for a worker");
        }
        try {
            return worker.evaluate(file, inputSeed, false);
        } finally {
            free.add(worker);
        }
    }

    /** Judges on the first device's worker, whatever else is free: the device that confirms champions. */
    public CandidateResult confirm(KernelFile file, long inputSeed) {
        Supervisor first = workers.getFirst();
        // Confirmations run when the campaign's evaluations are done, so this waits at most for a straggler.
        while (!free.remove(first)) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw KevoException.environment("interrupted while waiting for the confirming worker");
            }
        }
        try {
            return first.evaluate(file, inputSeed, false);
        } finally {
            free.add(first);
        }
    }

    /** Restarts over all workers: how often a candidate took its worker down. */
    public int restarts() {
        return workers.stream().mapToInt(w -> w.restarts().count()).sum();
    }

    @Override
    public void close() {
        workers.forEach(Supervisor::close);
    }
}
