package dev.kevo.worker;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Cudnn;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Baseline;
import dev.kevo.eval.Evaluator;
import dev.kevo.eval.Phase;
import dev.kevo.eval.Preflight;
import dev.kevo.eval.SanitizedRun;
import dev.kevo.task.ContractException;
import dev.kevo.task.op.Task;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The worker side: owns one GPU's context, keeps the evaluator (trusted kernels, baseline, buffers) warm
 * between candidates, and answers the supervisor. Ends at end of input, or after a sticky fault, since
 * nothing can run in that context any more. Without a device it is a check-only worker: preflight (source
 * rules, plans, NVRTC compile) under the same supervision, which is how {@code kevo check} bounds compiles.
 */
public final class WorkerLoop {
    /** Target and multiprocessor count a check-only worker assumes without a GPU: an H100's. */
    public static final String DEFAULT_ARCH = "sm_90";
    public static final int DEFAULT_SMS = 132;

    private final Optional<Integer> device;
    private final Optional<Path> nvrtcPath;
    private final InputStream in;
    private final OutputStream out;
    private final Mode mode;

    /** What a GPU worker does with each file. */
    public enum Mode {
        /** Judges it: checks, timing, beside the baseline. */
        JUDGE,
        /** Runs its plans for compute-sanitizer to watch ({@link SanitizerPass}), judging nothing, no baseline. */
        SANITIZER_RUN,
        /** Runs its plan once per suite shape for Nsight Compute to profile ({@link ProfilerPass}), judging nothing. */
        PROFILER_RUN
    }

    /** @param device the GPU to judge on, or empty for a check-only worker */
    public WorkerLoop(Optional<Integer> device, Optional<Path> nvrtcPath, InputStream in, OutputStream out) {
        this(device, nvrtcPath, in, out, Mode.JUDGE);
    }

    public WorkerLoop(Optional<Integer> device, Optional<Path> nvrtcPath, InputStream in, OutputStream out,
                      Mode mode) {
        this.device = device;
        this.nvrtcPath = nvrtcPath;
        this.in = in;
        this.out = out;
        this.mode = mode;
    }

    /** A judged file, and its cubin when a check-only worker compiled it for a GPU worker. */
    private record Answer(CandidateResult result, Compilation compiled) {
    }

    /** How this worker judges one file, parsed once for it from the request's text. */
    private interface Handler {
        Answer handle(KernelFile file, Message.Evaluate request, Phase.Listener phases);

        default boolean contextLost() {
            return false;
        }
    }

    public int run() throws IOException {
        long start = System.nanoTime();
        // A GPU worker loads NVRTC and opens its device before its configuration arrives: the supervisor may have
        // started it early and still be reading its inputs. A failure is reported once configured, as always.
        Nvrtc early = null;
        Gpu opened = null;
        KevoException failed = null;
        if (device.isPresent()) {
            try {
                early = Nvrtc.load(nvrtcPath);
                opened = Gpu.open(device.get());
            } catch (KevoException e) {
                failed = e;
            }
        }
        Optional<Message> first = Frames.read(in);
        if (first.isEmpty()) {
            if (opened != null) {
                opened.close();
            }
            return 0;
        }
        if (!(first.get() instanceof Message.Configure configure)) {
            send(new Message.Failed("worker expected 'configure' first, got " + first.get(), ExitCode.USAGE.code()));
            return ExitCode.USAGE.code();
        }
        try {
            if (failed != null) {
                throw failed;
            }
            Nvrtc nvrtc = early != null ? early : Nvrtc.load(nvrtcPath);
            Suite suite = Suite.of(configure.suiteName(), configure.shapes());
            if (device.isEmpty()) {
                return checkOnly(configure, nvrtc, suite, start);
            }
            if (mode != Mode.JUDGE) {
                return underTool(opened, nvrtc, suite, configure, start);
            }
            try (Gpu gpu = opened) {
                Baseline baseline = configure.baseline() != null && configure.baseline().isCudnn()
                        ? new Baseline.Vendor(Cudnn.load(System.getenv(),
                                Optional.ofNullable(configure.baseline().library())))
                        : new Baseline.File(ContractParser.parse(configure.baselineName(), null,
                                configure.baselineSource()));
                Evaluator evaluator = new Evaluator(gpu, nvrtc, CompileCache.fromEnvironment(System.getenv()), suite,
                        baseline, configure.settings());
                send(Message.Ready.here(gpu.info(), Gpu.count(), nvrtc.version(), nvrtc.location(), millisSince(start),
                        System.getenv()));
                return serve(new Handler() {
                    @Override
                    public Answer handle(KernelFile file, Message.Evaluate request, Phase.Listener phases) {
                        return new Answer(evaluator.evaluate(file, request.inputSeed(), request.run(), phases), null);
                    }

                    @Override
                    public boolean contextLost() {
                        return evaluator.contextLost();
                    }
                });
            }
        } catch (KevoException e) {
            send(new Message.Failed(e.getMessage(), e.kind().exitCode().code()));
            return e.kind().exitCode().code();
        }
    }

    /** Runs each file's plans for a tool to watch; the tool's report, not the answer, is what counts. */
    private int underTool(Gpu opened, Nvrtc nvrtc, Suite suite, Message.Configure configure, long start)
            throws IOException {
        SanitizedRun.Coverage coverage = mode == Mode.PROFILER_RUN ? SanitizedRun.Coverage.EVERY_SHAPE_ONCE
                : SanitizedRun.Coverage.EVERY_PLAN;
        try (Gpu gpu = opened; SanitizedRun run = new SanitizedRun(gpu, nvrtc,
                CompileCache.fromEnvironment(System.getenv()), suite, Task.of(configure.settings()),
                configure.settings().beyondSuite(), coverage)) {
            send(Message.Ready.here(gpu.info(), Gpu.count(), nvrtc.version(), nvrtc.location(), millisSince(start),
                    System.getenv()));
            return serve((file, request, phases) -> new Answer(run.run(file, request.inputSeed(), request.run(),
                    phases), null));
        }
    }

    /** Preflight only; a GPU, when the machine has one, is used just to read registers and spills. */
    private int checkOnly(Message.Configure configure, Nvrtc nvrtc, Suite suite, long start) throws IOException {
        try (Gpu gpu = Gpu.count() > 0 ? Gpu.open(0) : null) {
            Optional<Gpu> present = Optional.ofNullable(gpu);
            String arch = configure.arch() != null ? configure.arch() : present.map(g -> g.info().arch()).orElse(DEFAULT_ARCH);
            int sms = configure.sms() > 0 ? configure.sms() : present.map(g -> g.info().sms()).orElse(DEFAULT_SMS);
            Preflight preflight = new Preflight(nvrtc, arch, sms, suite, Task.of(configure.settings()));
            send(Message.Ready.here(present.map(Gpu::info).orElse(null), present.isPresent() ? Gpu.count() : 0,
                    nvrtc.version(), nvrtc.location(), millisSince(start), System.getenv()));
            return serve((file, request, phases) -> {
                phases.entered(Phase.COMPILE);
                Preflight.Checked checked = preflight.checked(file, request.inputSeed(), present);
                return new Answer(checked.result(), checked.compilation().orElse(null));
            });
        }
    }

    private int serve(Handler judge) throws IOException {
        while (true) {
            Optional<Message> next = Frames.read(in);
            if (next.isEmpty()) {
                return 0;
            }
            if (!(next.get() instanceof Message.Evaluate request)) {
                send(new Message.Failed("worker expected 'evaluate', got " + next.get(), ExitCode.USAGE.code()));
                return ExitCode.USAGE.code();
            }
            Answer judged = evaluate(judge, request);
            send(new Message.Result(request.id(), judged.result(), judge.contextLost(), judged.compiled()));
            if (judge.contextLost()) {
                return 0;
            }
        }
    }

    private Answer evaluate(Handler judge, Message.Evaluate request) {
        KernelFile file;
        try {
            file = request.file().parse();
        } catch (ContractException e) {
            return new Answer(CandidateResult.rejected(request.file().name(), request.file().path(), null,
                    Verdict.CONTRACT_ERROR, e.getMessage(), request.inputSeed()), null);
        }
        return judge.handle(file, request, new Phase.Listener() {
            @Override
            public void entered(Phase phase) {
                tell(new Message.Entered(request.id(), phase));
            }

            @Override
            public void expect(double seconds, String what) {
                tell(new Message.Expect(request.id(), seconds, what));
            }
        });
    }

    private void tell(Message message) {
        try {
            send(message);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void send(Message message) throws IOException {
        Frames.write(out, message);
    }

    private static double millisSince(long start) {
        return (System.nanoTime() - start) / 1e6;
    }
}
