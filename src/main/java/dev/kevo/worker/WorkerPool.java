package dev.kevo.worker;

import dev.kevo.KevoException;
import dev.kevo.result.CandidateResult;
import dev.kevo.task.KernelFile;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.BiFunction;
import java.util.function.IntFunction;

/**
 * One supervised worker per device, each candidate going to whichever is free. A candidate is judged entirely
 * in one worker, against the baseline timed in that worker on that device, so a speedup never mixes devices;
 * its result names the device. The first worker's device confirms champions.
 *
 * <p>With compilers (check-only workers, CPU only, one per device), a candidate that finds every GPU worker busy
 * is compiled meanwhile by an idle compiler: one that fails to parse, plan or compile is rejected without taking
 * GPU time, and one that passes reaches its GPU worker with its cubin, so NVRTC runs while the GPUs time other
 * candidates. A candidate never waits for a compiler: with none idle it waits for a GPU worker and is compiled
 * there (a single shared compiler that candidates queued for held two H200s to 1.42x the rate of one).
 */
public final class WorkerPool implements AutoCloseable {
    private final List<Supervisor> workers;
    private final LinkedBlockingQueue<Supervisor> free = new LinkedBlockingQueue<>();
    private final List<Message.Ready> ready;
    private final List<Supervisor> compilers;
    private final LinkedBlockingQueue<Supervisor> idleCompilers = new LinkedBlockingQueue<>();

    private WorkerPool(List<Supervisor> workers, List<Message.Ready> ready, List<Supervisor> compilers) {
        this.workers = List.copyOf(workers);
        this.ready = List.copyOf(ready);
        this.compilers = List.copyOf(compilers);
        free.addAll(workers);
        idleCompilers.addAll(compilers);
    }

    /**
     * Starts a worker on each device at once and returns when all are ready.
     *
     * @param supervisorFor makes the (not yet started) supervisor of a device ordinal
     */
    public static WorkerPool start(List<Integer> devices, IntFunction<Supervisor> supervisorFor) {
        return start(devices, supervisorFor, null);
    }

    /**
     * As {@link #start(List, IntFunction)}, with one compiler per device for the first device's architecture and
     * SM count ({@code compilerFor} makes a check-only supervisor; null for none).
     */
    public static WorkerPool start(List<Integer> devices, IntFunction<Supervisor> supervisorFor,
                                   BiFunction<String, Integer, Supervisor> compilerFor) {
        List<Supervisor> supervisors = devices.stream().map(supervisorFor::apply).toList();
        List<Message.Ready> ready = readyAll(supervisors);
        List<Supervisor> compilers = List.of();
        if (compilerFor != null && ready.getFirst().device() != null) {
            // Compilers need the first device's architecture, so they start once the GPU workers are ready.
            compilers = supervisors.stream().map(s -> compilerFor.apply(ready.getFirst().device().arch(),
                    ready.getFirst().device().sms())).toList();
            try {
                readyAll(compilers);
            } catch (RuntimeException e) {
                supervisors.forEach(Supervisor::close);
                throw e;
            }
        }
        return new WorkerPool(supervisors, ready, compilers);
    }

    /**
     * Starts the supervisors' workers side by side (each takes about a second: its JVM, and for a GPU worker its
     * context and the baseline's check) and returns what each reported, in order; closes them all if one fails.
     */
    private static List<Message.Ready> readyAll(List<Supervisor> supervisors) {
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
        return ready;
    }

    /** What each worker reported when ready, in the order of the devices asked for. */
    public List<Message.Ready> ready() {
        return ready;
    }

    public int size() {
        return workers.size();
    }

    /** Judges on the first free worker; when all are busy, compiles ahead (with a compiler) and waits for one. */
    public CandidateResult evaluate(KernelFile file, long inputSeed) {
        Supervisor worker = free.poll();
        Message.Compiled ahead = null;
        Supervisor compiler = worker == null ? idleCompilers.poll() : null;
        if (compiler != null) {
            Message.Result preflight;
            try {
                preflight = compiler.compile(file, inputSeed);
            } finally {
                idleCompilers.add(compiler);
            }
            if (!preflight.result().passed()) {
                return preflight.result();
            }
            ahead = preflight.compiled();
        }
        if (worker == null) {
            worker = take();
        }
        try {
            Message.Compiled usable = ahead != null && worker.ready().device() != null
                    && ahead.arch().equals(worker.ready().device().arch()) ? ahead : null;
            return worker.evaluate(file, inputSeed, false, usable);
        } finally {
            free.add(worker);
        }
    }

    private Supervisor take() {
        try {
            return free.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KevoException.environment("interrupted while waiting for a worker");
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
        compilers.forEach(Supervisor::close);
    }
}
