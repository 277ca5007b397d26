package dev.kevo.worker;

import dev.kevo.KevoException;
import dev.kevo.cuda.Compilation;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Defaults;
import dev.kevo.data.Profile;
import dev.kevo.data.Sanitized;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;

/**
 * One supervised worker per device, each candidate going to whichever is free. A candidate is judged entirely
 * in one worker, against the baseline timed in that worker on that device, so a speedup never mixes devices;
 * its result names the device. The first worker's device confirms champions.
 *
 * <p>With compilers (check-only workers, CPU only, a few per device), a candidate is compiled by an idle compiler
 * while the GPUs judge others: one that fails to parse, plan or compile is rejected without taking GPU time, and one
 * that passes reaches its GPU worker with its cubin. A candidate compiles on a GPU worker only when that worker is
 * free, no compiler is idle and no compiled candidate waits for it (one compiler per device, used only when every GPU
 * was busy, left the GPU compiling much of the time: bench/results/campaign-throughput-h100/; a single shared compiler
 * that candidates queued for held two GPUs well below twice the rate of one: bench/results/multigpu*).
 *
 * <p>Workers on a cluster (Slurm steps) may go away: one that the cluster takes mid-candidate gives the candidate
 * back, to be judged again by the next free worker (or by its own restarted step), and one that cannot start is
 * left out with one notice naming its node, the others going on. A worker on this host that cannot start stops
 * the pool, as before.
 */
public final class WorkerPool implements AutoCloseable {
    /** How long a candidate waiting for a worker sleeps between looks at whether any is left. */
    private static final long WAIT_SLICE_MILLIS = 500;
    /** How long a candidate waits for a compiler before it looks again whether a GPU worker it may take is free. */
    private static final long COMPILER_POLL_MILLIS = 20;

    private final List<Supervisor> workers;
    private final List<Supervisor> live;
    private final LinkedBlockingQueue<Supervisor> free = new LinkedBlockingQueue<>();
    private final List<Message.Ready> ready;
    private final List<Supervisor> compilers;
    private final LinkedBlockingQueue<Supervisor> idleCompilers = new LinkedBlockingQueue<>();
    private final Consumer<String> notices;
    private final Set<String> noticed = ConcurrentHashMap.newKeySet();
    /** Compiled candidates waiting for a GPU worker: while any waits, uncompiled ones do not take a free worker. */
    private final AtomicInteger compiledWaiting = new AtomicInteger();
    /** Candidates compiled before anyone asked for them ({@link #compileAhead}), not yet asked for. */
    private final Map<AheadKey, CompletableFuture<Message.Result>> drawnAhead = new ConcurrentHashMap<>();

    private WorkerPool(List<Supervisor> workers, List<Message.Ready> ready, List<Supervisor> compilers,
                       Consumer<String> notices) {
        this.workers = List.copyOf(workers);
        this.live = new CopyOnWriteArrayList<>(workers);
        this.ready = List.copyOf(ready);
        this.compilers = List.copyOf(compilers);
        this.notices = notices;
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
     * As {@link #start(List, IntFunction)}, with compilers ({@link Defaults#COMPILERS_PER_GPU} per device) for the
     * first device's architecture and SM count ({@code compilerFor} makes a check-only supervisor; null for none).
     */
    public static WorkerPool start(List<Integer> devices, IntFunction<Supervisor> supervisorFor,
                                   BiFunction<String, Integer, Supervisor> compilerFor) {
        return start(devices, supervisorFor, compilerFor, Defaults.COMPILERS_PER_GPU);
    }

    /** As above, with {@code compilersPerGpu} compilers per device (0: none). */
    public static WorkerPool start(List<Integer> devices, IntFunction<Supervisor> supervisorFor,
                                   BiFunction<String, Integer, Supervisor> compilerFor, int compilersPerGpu) {
        return start(devices.stream().map(supervisorFor::apply).toList(), compilerFor, System.err::println,
                compilersPerGpu);
    }

    /** As below, with {@link Defaults#COMPILERS_PER_GPU} compilers per device. */
    public static WorkerPool start(List<Supervisor> supervisors, BiFunction<String, Integer, Supervisor> compilerFor,
                                   Consumer<String> notices) {
        return start(supervisors, compilerFor, notices, Defaults.COMPILERS_PER_GPU);
    }

    /**
     * Starts the given supervisors' workers at once; an expendable one (a cluster step) that cannot start is left
     * out with one line to {@code notices}, and the pool starts with the rest.
     */
    public static WorkerPool start(List<Supervisor> supervisors, BiFunction<String, Integer, Supervisor> compilerFor,
                                   Consumer<String> notices, int compilersPerGpu) {
        List<Started> started = readyAll(supervisors);
        List<Supervisor> up = new ArrayList<>();
        List<Message.Ready> ready = new ArrayList<>();
        Set<String> named = new java.util.HashSet<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < supervisors.size(); i++) {
            Started s = started.get(i);
            if (s.ready() != null) {
                up.add(supervisors.get(i));
                ready.add(s.ready());
            } else if (named.add(supervisors.get(i).where())) {
                notices.accept(s.failure() + "; going on without " + supervisors.get(i).where());
                failures.add(s.failure());
            }
        }
        if (up.isEmpty()) {
            throw KevoException.environment("no worker started; " + failures.getFirst());
        }
        List<Supervisor> compilers = List.of();
        if (compilerFor != null && compilersPerGpu > 0 && ready.getFirst().device() != null) {
            // Compilers need the first device's architecture, so they start once the GPU workers are ready. They
            // run on this host: a few per GPU worker, leaving a core to the workers (a cluster may bring 100 GPUs).
            int count = Math.min(up.size() * compilersPerGpu,
                    Math.max(1, Runtime.getRuntime().availableProcessors() - 1));
            compilers = java.util.stream.IntStream.range(0, count).mapToObj(i -> compilerFor.apply(
                    ready.getFirst().device().arch(), ready.getFirst().device().sms())).toList();
            try {
                readyAll(compilers);
            } catch (RuntimeException e) {
                supervisors.forEach(Supervisor::close);
                throw e;
            }
        }
        return new WorkerPool(up, ready, compilers, notices);
    }

    /** A worker's start: what it reported when ready, or (an expendable one only) why it did not start. */
    private record Started(Message.Ready ready, String failure) {
    }

    /**
     * Starts the supervisors' workers side by side (each takes about a second: its JVM, and for a GPU worker its
     * context and the baseline's check) and returns how each start went, in order; an expendable one that failed
     * is closed and its failure kept, any other failure closes them all and is thrown.
     */
    private static List<Started> readyAll(List<Supervisor> supervisors) {
        List<Started> ready = new ArrayList<>();
        try (ExecutorService starting = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Message.Ready>> started = supervisors.stream()
                    .map(s -> starting.submit(s::ready)).toList();
            for (int i = 0; i < started.size(); i++) {
                try {
                    ready.add(new Started(started.get(i).get(), null));
                } catch (ExecutionException e) {
                    if (!supervisors.get(i).expendable() || !(e.getCause() instanceof KevoException k)) {
                        throw e;
                    }
                    supervisors.get(i).close();
                    ready.add(new Started(null, k.getMessage()));
                }
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

    /** What each worker reported when ready, in the order of the devices asked for (those that started). */
    public List<Message.Ready> ready() {
        return ready;
    }

    /** Workers in the pool now: those that started, less any that were left out since. */
    /** How many compilers compile candidates ahead (none where the pool was started without). */
    public int compilers() {
        return compilers.size();
    }

    public int size() {
        return live.size();
    }

    /** A candidate to compile before it is asked for, named and seeded as it will be asked for. */
    public record Ahead(KernelFile file, long inputSeed) {
    }

    /** What a compile depends on: a candidate asked for with all three the same takes a compile drawn ahead. */
    private record AheadKey(String name, String source, long inputSeed) {
        static AheadKey of(KernelFile file, long inputSeed) {
            return new AheadKey(file.name(), file.source(), inputSeed);
        }
    }

    /**
     * Has the compilers that are idle now compile {@code candidates}, in order, one each, and returns at once: a
     * campaign's next generation drawn while the GPU judges the last children of this one, so that the GPU finds
     * its first candidates compiled when the generation starts. A candidate asked for later with the same name,
     * source and input seed takes that compile, waiting for it if it is still under way; any other is judged as
     * always. Forgets what an earlier call drew that nobody asked for.
     */
    public void compileAhead(List<Ahead> candidates) {
        drawnAhead.clear();
        for (Ahead candidate : candidates) {
            Supervisor compiler = idleCompilers.poll();
            if (compiler == null) {
                return;
            }
            CompletableFuture<Message.Result> compiled = new CompletableFuture<>();
            drawnAhead.put(AheadKey.of(candidate.file(), candidate.inputSeed()), compiled);
            Thread.ofVirtual().name("compile-ahead").start(() -> {
                try {
                    compiled.complete(compiler.compile(candidate.file(), candidate.inputSeed()));
                } catch (RuntimeException | Error e) {
                    compiled.completeExceptionally(e);
                } finally {
                    idleCompilers.add(compiler);
                }
            });
        }
    }

    /**
     * The preflight drawn ahead for this candidate, once done; empty when none was drawn, or its compiler failed
     * (the candidate is then compiled as any other, so a compiler's fault never becomes the candidate's verdict).
     */
    private Optional<Message.Result> compiledAhead(KernelFile file, long inputSeed) {
        CompletableFuture<Message.Result> drawn = drawnAhead.remove(AheadKey.of(file, inputSeed));
        if (drawn == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(drawn.join());
        } catch (CompletionException | CancellationException e) {
            return Optional.empty();
        }
    }

    /**
     * Judges on a GPU worker. With compilers, the candidate is compiled ahead by one whenever one is idle, so that
     * the GPU judges compiled candidates while NVRTC makes the next (a genome candidate takes NVRTC about as long as
     * the GPU takes to judge it); it is compiled on a free GPU worker instead only when no compiler is idle and no
     * compiled candidate is waiting for that worker. The cubin of {@code run}, if any, gives way to the one compiled
     * here.
     */
    public CandidateResult evaluate(KernelFile file, long inputSeed, Evaluator.Run run) {
        Supervisor worker = null;
        Compilation ahead = null;
        Supervisor compiler = null;
        Optional<Message.Result> drawn = compiledAhead(file, inputSeed);
        if (drawn.isPresent()) {
            if (!drawn.get().result().passed()) {
                return drawn.get().result();
            }
            ahead = drawn.get().compiled();
        } else if (compilers.isEmpty()) {
            worker = free.poll();
        } else {
            while (compiler == null && worker == null) {
                compiler = idleCompilers.poll();
                if (compiler == null && compiledWaiting.get() == 0) {
                    worker = free.poll();
                }
                if (compiler == null && worker == null) {
                    compiler = pollCompiler();
                }
            }
        }
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
        Compilation compiled = ahead;
        while (true) {
            if (worker == null) {
                worker = compiled == null ? take() : takeCompiled();
            }
            Optional<CandidateResult> judged = attempt(worker, file, w -> {
                Compilation usable = compiled != null && w.ready().device() != null
                        && compiled.arch().equals(w.ready().device().arch()) ? compiled : null;
                CandidateResult result = w.evaluate(file, inputSeed, run.withCompiledAhead(usable));
                // On the device just used, before it is free: a sanitizer run beside another candidate's timing
                // would disturb that timing.
                return w.sanitizesEvery() && result.passed() ? result.withSanitized(w.sanitize(file, result))
                        : result;
            });
            if (judged.isPresent()) {
                return judged.get();
            }
            worker = null;
        }
    }

    /**
     * Judges on {@code worker} and frees it; empty when the cluster took the worker away mid-candidate (it will
     * start a new step for its next one) or it could not start again (it is left out of the pool).
     */
    private <T> Optional<T> attempt(Supervisor worker, KernelFile file, Function<Supervisor, T> judge) {
        boolean keep = true;
        try {
            return Optional.of(judge.apply(worker));
        } catch (WorkerLost e) {
            notices.accept(e.getMessage() + "; " + file.name() + " is judged again");
            return Optional.empty();
        } catch (KevoException e) {
            if (!worker.expendable()) {
                throw e;
            }
            keep = false;
            leaveOut(worker, e);
            return Optional.empty();
        } finally {
            if (keep) {
                free.add(worker);
            }
        }
    }

    /** A cluster worker that cannot start (again) leaves the pool, its node named once; none left is fatal. */
    private void leaveOut(Supervisor worker, KevoException why) {
        live.remove(worker);
        worker.close();
        if (noticed.add(worker.where())) {
            notices.accept(why.getMessage() + "; going on with " + live.size() + " worker(s)");
        }
        if (live.isEmpty()) {
            throw KevoException.environment("every worker is gone; the last: " + why.getMessage());
        }
    }

    /** A GPU worker for a compiled candidate, which uncompiled ones leave to it (see {@link #evaluate}). */
    private Supervisor takeCompiled() {
        compiledWaiting.incrementAndGet();
        try {
            return take();
        } finally {
            compiledWaiting.decrementAndGet();
        }
    }

    /** An idle compiler within a short wait, or null: the caller then looks again for a free GPU worker. */
    private Supervisor pollCompiler() {
        if (live.isEmpty()) {
            throw KevoException.environment("every worker is gone");
        }
        try {
            return idleCompilers.poll(COMPILER_POLL_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KevoException.environment("interrupted while waiting for a compiler");
        }
    }

    private Supervisor take() {
        try {
            while (true) {
                Supervisor next = free.poll(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS);
                if (next != null) {
                    return next;
                }
                if (live.isEmpty()) {
                    throw KevoException.environment("every worker is gone");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw KevoException.environment("interrupted while waiting for a worker");
        }
    }

    /**
     * Judges on the first device's worker, whatever else is free: the device that confirms champions; with the at-scale
     * checks (the held-out shapes and the at-scale one).
     */
    public CandidateResult confirm(KernelFile file, long inputSeed) {
        return onFirst(file, w -> w.evaluate(file, inputSeed, Evaluator.Run.plain().withAtScale(true)));
    }

    /**
     * Runs {@code file} under compute-sanitizer on the first device, as {@link #confirm} judges there, on the shapes
     * {@code judged} was checked on; empty when the pool's workers were set up without a sanitizer.
     */
    public Optional<Sanitized> sanitize(KernelFile file, CandidateResult judged) {
        if (live.isEmpty() || !live.getFirst().sanitizes()) {
            return Optional.empty();
        }
        return Optional.of(onFirst(file, w -> w.sanitize(file, judged)));
    }

    /**
     * Profiles {@code file} on {@code shapes} under Nsight Compute on whichever GPU worker is free next, holding it
     * meanwhile (a profile beside another candidate's timing would disturb that timing); empty when the pool's
     * workers were set up without ncu.
     */
    public Optional<Profile> profile(KernelFile file, long inputSeed, List<Shape> shapes) {
        if (live.isEmpty() || !live.getFirst().profiles()) {
            return Optional.empty();
        }
        while (true) {
            Optional<Profile> found = attempt(take(), file, w -> w.profile(file, inputSeed, shapes));
            if (found.isPresent()) {
                return found;
            }
        }
    }

    private <T> T onFirst(KernelFile file, Function<Supervisor, T> judge) {
        while (true) {
            if (live.isEmpty()) {
                throw KevoException.environment("every worker is gone");
            }
            Supervisor first = live.getFirst();
            // Confirmations run when the campaign's evaluations are done, so this waits at most for a straggler.
            while (!free.remove(first)) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw KevoException.environment("interrupted while waiting for the confirming worker");
                }
            }
            Optional<T> judged = attempt(first, file, judge);
            if (judged.isPresent()) {
                return judged.get();
            }
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
