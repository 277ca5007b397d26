package dev.kevo.worker;

import dev.kevo.KevoException;
import dev.kevo.data.BaselineChoice;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Profile;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.SanitizeWhen;
import dev.kevo.data.Seconds;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.eval.Phase;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Runs candidates in a worker process and never trusts it: each phase has a wall-time limit, a worker that
 * overruns one, dies, or reports a sticky CUDA fault is killed and replaced, and the candidate gets a verdict
 * that says which. The process holding a campaign never touches the GPU, so no mutant can take it down.
 */
public final class Supervisor implements AutoCloseable {

    /**
     * How to start a worker, where, and what it judges against; {@code arch} and {@code sms} matter only to a
     * check-only worker (one started without a device; null and 0 mean its GPU's, or an H100's), which needs no
     * baseline.
     */
    public record Setup(List<String> workerCommand, Suite suite, KernelFile baseline, EvalSettings settings,
                        String arch, int sms, BaselineChoice baselineChoice, Launcher launcher,
                        ComputeSanitizer sanitizer, NsightCompute profiler) {
        public Setup {
            workerCommand = List.copyOf(workerCommand);
        }

        /** A worker on this host with no baseline and its own GPU's target: set what differs. */
        public static Builder builder(List<String> workerCommand, Suite suite, EvalSettings settings) {
            return new Builder(workerCommand, suite, settings);
        }

        /** Names each optional part, so that no caller passes a row of nulls. */
        public static final class Builder {
            private final List<String> workerCommand;
            private final Suite suite;
            private final EvalSettings settings;
            private KernelFile baseline;
            private BaselineChoice baselineChoice;
            private String arch;
            private int sms;
            private Launcher launcher = Launcher.LOCAL;
            private ComputeSanitizer sanitizer;
            private NsightCompute profiler;

            private Builder(List<String> workerCommand, Suite suite, EvalSettings settings) {
                this.workerCommand = workerCommand;
                this.suite = suite;
                this.settings = settings;
            }

            /** A kernel-file baseline (null: none, or cuDNN through {@link #baselineChoice}). */
            public Builder baseline(KernelFile file) {
                this.baseline = file;
                return this;
            }

            public Builder baselineChoice(BaselineChoice choice) {
                this.baselineChoice = choice;
                return this;
            }

            /** For a check-only worker: the architecture and SM count it checks for. */
            public Builder target(String arch, int sms) {
                this.arch = arch;
                this.sms = sms;
                return this;
            }

            public Builder launcher(Launcher launcher) {
                this.launcher = launcher;
                return this;
            }

            /** What {@link #sanitize} runs workers under (null: this supervisor sanitizes nothing). */
            public Builder sanitizer(ComputeSanitizer value) {
                this.sanitizer = value;
                return this;
            }

            /** What {@link #profile} runs workers under (null: this supervisor profiles nothing). */
            public Builder profiler(NsightCompute value) {
                this.profiler = value;
                return this;
            }

            public Setup build() {
                return new Setup(workerCommand, suite, baseline, settings, arch, sms, baselineChoice, launcher,
                        sanitizer, profiler);
            }
        }
    }

    /** What restarts cost: every worker start after the first, in milliseconds until it was ready. */
    public record Restarts(int count, List<Double> millis) {
        public Restarts {
            millis = List.copyOf(millis);
        }
    }

    private static final int STDERR_TAIL_CHARS = 4000;
    /** How often the worker's memory is looked at while it works. */
    private static final long MEMORY_CHECK_NANOS = 250_000_000L;

    private final Setup setup;
    private Spawned early;
    private final List<Double> restartMillis = new ArrayList<>();
    private WorkerProcess worker;
    private Message.Ready ready;
    private int starts;
    private long nextId;

    public Supervisor(Setup setup) {
        this(setup, null);
    }

    /**
     * A supervisor whose first worker was already started with {@link #spawn(List)} (its command must be
     * {@code setup}'s), so that the worker's JVM and CUDA start while this process reads its inputs.
     */
    public Supervisor(Setup setup, Spawned early) {
        this.setup = setup;
        this.early = early;
    }

    /** A worker process started before its supervisor had its setup; close it if no supervisor adopts it. */
    public static final class Spawned implements AutoCloseable {
        private WorkerProcess worker;

        private Spawned(WorkerProcess worker) {
            this.worker = worker;
        }

        private WorkerProcess adopt() {
            WorkerProcess w = worker;
            worker = null;
            return w;
        }

        @Override
        public void close() {
            if (worker != null) {
                worker.kill();
                worker = null;
            }
        }
    }

    /** Starts a worker process now; it initialises its device and waits for its configuration. */
    public static Spawned spawn(List<String> workerCommand) {
        return new Spawned(WorkerProcess.spawn(workerCommand, Launcher.LOCAL, STDERR_TAIL_CHARS, Long.MAX_VALUE));
    }

    /** Starts the worker if none is running, and returns what it reported when it was ready. */
    public Message.Ready ready() {
        if (worker == null || !worker.isAlive()) {
            start();
        }
        return ready;
    }

    public Restarts restarts() {
        return new Restarts(restartMillis.size(), restartMillis);
    }

    /** Where this supervisor's workers run: "this host", "node gpu07". */
    public String where() {
        return setup.launcher().where();
    }

    /** Whether a worker of this supervisor that cannot start may be left out of its pool (see {@link Launcher}). */
    public boolean expendable() {
        return setup.launcher().expendable();
    }

    /**
     * Judges one kernel file in the worker on inputs from {@code inputSeed}, as {@code run} says; never throws for
     * anything the candidate does.
     *
     * @throws WorkerLost when the cluster took the worker away mid-candidate (never for a worker on this host)
     */
    public CandidateResult evaluate(KernelFile file, long inputSeed, Evaluator.Run run) {
        int restartsBefore = restartMillis.size();
        ready();
        CandidateResult.Builder result = exchange(file, inputSeed, run).result().toBuilder();
        if (ready != null && ready.device() != null) {
            result.device(ready.judgedOn());
        }
        if (restartMillis.size() > restartsBefore) {
            result.workerStartMs(restartMillis.getLast());
        }
        return result.build();
    }

    /**
     * Runs {@code file} under each compute-sanitizer tool, in workers of its own on this supervisor's device
     * ({@link SanitizerPass}), on the shapes an evaluation {@code judged} checked (its timing secret draws them again);
     * this supervisor's worker stays as it is. Never throws for anything the file does.
     *
     * @throws IllegalStateException when this supervisor was set up without a sanitizer
     */
    public Sanitized sanitize(KernelFile file, CandidateResult judged) {
        if (!sanitizes()) {
            throw new IllegalStateException("this supervisor has no compute-sanitizer, or its workers are not local");
        }
        return new SanitizerPass(setup, ready().judgedOn()).run(file, judged.inputSeed(),
                Evaluator.Run.replaying(judged)).following(judged.plans());
    }

    /**
     * Profiles {@code file}'s launches on {@code shapes} under Nsight Compute, in a worker of its own on this
     * supervisor's device ({@link ProfilerPass}); never throws for anything the file does (a failed profile says why).
     *
     * @throws IllegalStateException when this supervisor was set up without a profiler
     */
    public Profile profile(KernelFile file, long inputSeed, List<Shape> shapes) {
        if (!profiles()) {
            throw new IllegalStateException("this supervisor has no ncu, or its workers are not local");
        }
        Message.Ready here = ready();
        return new ProfilerPass(setup, here.judgedOn(), here.device().sms()).run(file, inputSeed, shapes);
    }

    /** Whether {@link #profile} can run here: Nsight Compute, and workers on this host. */
    public boolean profiles() {
        return setup.profiler() != null && setup.launcher() instanceof Launcher.Local;
    }

    /** Whether every candidate that passes here is also sanitized ({@code sanitize: every}, with a sanitizer). */
    public boolean sanitizesEvery() {
        return sanitizes() && setup.settings().sanitize() == SanitizeWhen.EVERY;
    }

    /** Whether {@link #sanitize} can run here: a sanitizer, and workers on this host. */
    public boolean sanitizes() {
        return setup.sanitizer() != null && setup.launcher() instanceof Launcher.Local;
    }

    /**
     * A check-only worker's preflight of the file (contract, plans, compile), with its cubin when it passed, for a
     * GPU worker to load instead of compiling.
     */
    public Message.Result compile(KernelFile file, long inputSeed) {
        ready();
        return exchange(file, inputSeed, Evaluator.Run.plain());
    }

    private Message.Result exchange(KernelFile file, long inputSeed, Evaluator.Run run) {
        long id = ++nextId;
        String path = file.path() == null ? null : file.path().toString();
        try {
            worker.send(new Message.Evaluate(id, Message.FileText.of(file), inputSeed, run));
        } catch (IOException e) {
            reclaimedCheck();
            return lost(id, file, path, inputSeed, Verdict.WORKER_CRASHED, "the worker stopped reading: " + e.getMessage());
        }
        Phase phase = Phase.COMPILE;
        long phaseDeadline = System.nanoTime() + phase.limitIn(setup.settings().limits()).toNanos();
        long deadline = phaseDeadline;
        Message.Expect expected = null;  // the work the worker waits for now, when it said; null: the phase's limit
        long expectedSince = 0;
        while (true) {
            Object next = worker.poll(Math.min(deadline, System.nanoTime() + MEMORY_CHECK_NANOS));
            if (next == null && System.nanoTime() < deadline) {
                long rss = worker.residentBytes();
                long limit = setup.settings().limits().workerMemoryBytes();
                if (rss > limit) {
                    Verdict verdict = phase == Phase.COMPILE ? Verdict.COMPILE_TIMEOUT : Verdict.RESOURCES_EXCEEDED;
                    return lost(id, file, path, inputSeed, verdict, String.format(Locale.ROOT,
                            "the worker grew to %.1f GB in the %s phase, over the %.1f GB limit; killed and replaced",
                            rss / 1e9, phase.id(), limit / 1e9));
                }
                continue;
            }
            switch (next) {
                case null -> {
                    Verdict verdict = phase == Phase.COMPILE ? Verdict.COMPILE_TIMEOUT : Verdict.KERNEL_TIMEOUT;
                    if (expected != null && deadline < phaseDeadline) {
                        double waited = (System.nanoTime() - expectedSince) / 1e9;
                        long killStart = System.nanoTime();
                        retire();
                        return Message.Result.of(id, CandidateResult.rejected(file.name(), path, file.description(),
                                verdict, String.format(Locale.ROOT, "%s ran past its deadline of %.1f s (from the "
                                        + "time the shape needs); worker killed after %.1f s and replaced (kill took "
                                        + "%.0f ms)", expected.what(), expected.seconds(), waited,
                                        (System.nanoTime() - killStart) / 1e6), inputSeed), false);
                    }
                    return lost(id, file, path, inputSeed, verdict, phase.id() + " phase ran past its limit of "
                            + Seconds.of(phase.limitIn(setup.settings().limits())) + " s (" + phase.limitKey()
                            + " in the eval config); worker killed and replaced");
                }
                case Message.Entered entered when entered.id() == id -> {
                    phase = entered.phase();
                    phaseDeadline = System.nanoTime() + phase.limitIn(setup.settings().limits()).toNanos();
                    deadline = phaseDeadline;
                    expected = null;
                }
                case Message.Expect expect when expect.id() == id -> {
                    expected = expect;
                    expectedSince = System.nanoTime();
                    deadline = Math.min(phaseDeadline, expectedSince + (long) (expect.seconds() * 1e9));
                }
                case Message.Result result when result.id() == id -> {
                    if (result.contextLost()) {
                        retire();
                    }
                    return result;
                }
                case Message.Failed failed -> throw failure(failed);
                case WorkerProcess.Closed closed -> {
                    reclaimedCheck();
                    return lost(id, file, path, inputSeed, Verdict.WORKER_CRASHED, "the worker died in the " + phase.id()
                            + " phase (" + closed.reason() + ")" + worker.stderrTail());
                }
                default -> {
                    // A stale message from an earlier candidate cannot happen with one request in flight; skip it.
                }
            }
        }
    }

    /**
     * The worker's output ended: if the cluster ended it (its launcher reads that in srun's and slurmstepd's last
     * words), it is retired and the candidate goes back, verdict-less, to be judged again.
     */
    private void reclaimedCheck() {
        if (setup.launcher() instanceof Launcher.Local) {
            return;
        }
        String stderr = worker.stderrAfterExit();
        if (setup.launcher().reclaimed(stderr)) {
            retire();
            String line = stderr.lines().filter(setup.launcher()::reclaimed).findFirst().orElse("").strip();
            throw new WorkerLost(where() + ": worker step ended by the cluster (" + line + ")");
        }
    }

    /** The worker is gone mid-judgement: it is retired, and the candidate gets {@code verdict}. */
    private Message.Result lost(long id, KernelFile file, String path, long seed, Verdict verdict, String detail) {
        retire();
        return Message.Result.of(id, CandidateResult.rejected(file.name(), path, file.description(), verdict, detail,
                seed), false);
    }

    private void start() {
        long begin = System.nanoTime();
        boolean restart = starts++ > 0;
        WorkerProcess adopted = early == null ? null : early.adopt();
        early = null;
        long deadline = System.nanoTime() + setup.settings().limits().startup().toNanos();
        try {
            worker = adopted != null && adopted.isAlive() ? adopted
                    : WorkerProcess.spawn(setup.workerCommand(), setup.launcher(), STDERR_TAIL_CHARS, deadline);
        } catch (KevoException e) {
            throw new KevoException(e.kind(), place() + e.getMessage());
        }
        Suite suite = setup.suite();
        try {
            worker.send(new Message.Configure(suite.name(), suite.shapes().stream().map(Shape::toString).toList(),
                    setup.baseline() == null ? null : setup.baseline().name(),
                    setup.baseline() == null ? null : setup.baseline().source(), setup.settings(), setup.arch(),
                    setup.sms(), setup.baselineChoice()));
        } catch (IOException e) {
            retire();
            throw KevoException.environment(place() + "the worker did not start: " + e.getMessage());
        }
        Object first = worker.poll(deadline);
        switch (first) {
            case Message.Ready r -> ready = r;
            case Message.Failed f -> {
                retire();
                KevoException e = failure(f);
                throw new KevoException(e.kind(), place() + e.getMessage());
            }
            case null -> {
                String tail = worker.stderrTail();
                retire();
                throw KevoException.environment(place() + "the worker was not ready within "
                        + Seconds.of(setup.settings().limits().startup()) + " s" + tail);
            }
            default -> {
                String tail = worker.stderrTail();
                retire();
                throw KevoException.environment(place() + "the worker did not start: " + first + tail);
            }
        }
        if (restart) {
            restartMillis.add((System.nanoTime() - begin) / 1e6);
        }
    }

    /** "node gpu07: " for a worker elsewhere, so that a node that cannot start its step is named; "" here. */
    private String place() {
        return setup.launcher() instanceof Launcher.Local ? "" : where() + ": ";
    }

    private static KevoException failure(Message.Failed failed) {
        return new KevoException(failed.exitCode() == KevoException.Kind.ENVIRONMENT.exitCode().code()
                ? KevoException.Kind.ENVIRONMENT : KevoException.Kind.INPUT, failed.message());
    }

    /** Kills the current worker; the next candidate starts a fresh one. */
    private void retire() {
        if (worker != null) {
            worker.kill();
            worker = null;
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /** As {@link #close()}, giving the worker {@code grace} to exit before it is killed. */
    void close(Duration grace) {
        if (early != null) {
            early.close();
            early = null;
        }
        if (worker != null) {
            worker.shutdown(grace);
            worker = null;
        }
    }
}
