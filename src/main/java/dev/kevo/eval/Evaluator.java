package dev.kevo.eval;

import dev.kevo.data.CandidateResult;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Stats;
import dev.kevo.data.Tolerance;
import dev.kevo.data.Verdict;

import dev.kevo.KevoException;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.Cudnn;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.Ablation;
import dev.kevo.data.PlanJudgement;
import dev.kevo.data.BeyondSuite;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.InputCase;
import dev.kevo.data.KernelResources;
import dev.kevo.data.Score;
import dev.kevo.data.Screen;
import dev.kevo.data.ShapeRegime;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import dev.kevo.task.op.Task;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * Judges kernel files on one GPU: compile with NVRTC, check every shape of the suite on every input case
 * against a float64 reference, then time candidate, baseline and two plain copies (the driver's and kevo's copy
 * kernel) side by side.
 *
 * <p>A candidate is scored only when every shape passed ({@link Score}): score = geometric mean of the per-shape
 * speedups over the baseline, with its interval; floor fraction = geometric mean of the faster copy's time over
 * candidate time.
 */
public final class Evaluator implements AutoCloseable {
    private final Gpu gpu;
    private final Suite suite;
    private final EvalSettings settings;
    private final Task task;
    /** The settings' input cases that the operator is checked on. */
    private final List<InputCase> cases;
    /** The settings' tolerance, else the operator's. */
    private final Tolerance tolerance;
    private final TrustedKernels trusted;
    private final Builds builds;
    private final Workbench bench;
    /** What the workbench holds for the suite: the bounds of the shapes drawn beyond it. */
    private final ShapeDraw.Bounds bounds;
    private final LaunchGate gate;
    private final CorrectnessCheck correctness;
    private final InterleavedTimer timer;
    private final Preflight preflight;
    /**
     * The baseline is kevo's own, so its start-up check is a sanity check of the set-up, not a judgement: the
     * case that catches a missing max subtraction and one ordinary case, rather than all of them.
     */
    private static final List<InputCase> BASELINE_CASES = List.of(InputCase.NORMAL_1, InputCase.LARGE_POSITIVE);
    /** The baseline's start-up check draws its inputs from this seed, whatever the candidates' seeds. */
    private static final long BASELINE_CHECK_SEED = 0x5eed_ba5eL;
    /** The input of the baseline's one timed launch per shape at start, which launch deadlines scale with. */
    private static final long BASELINE_TIMING_SEED = 0x5eed_71e5L;
    private final BaselineRun baseline;
    private final TimedLaunchAudit audit;
    private final LaunchDeadline deadline;
    /** Wall time of one baseline launch per shape, timed at start: what launch deadlines are derived from. */
    private final double[] baselineLaunchMs;
    private String contextLostBy;
    /** Safeguards switched off for bench/check_costs.sh (never by default): read once, for this evaluator. */
    private final Ablation ablation = Ablation.fromSystemProperty();
    /** Timing secrets: unpredictable to anything on the GPU, which sees only inputs and the kernel's own state. */
    private final SecureRandom secrets = new SecureRandom();

    /** @param cache where kevo's own kernels' cubins are kept between runs; candidates are always compiled */
    public Evaluator(Gpu gpu, Nvrtc nvrtc, CompileCache cache, Suite suite, Baseline against,
                     EvalSettings settings) {
        this(gpu, nvrtc, cache, suite, against, settings, Task.of(settings));
    }

    /** As above, for the settings' task as given ({@link Task#under}): also one the command line refuses yet. */
    public Evaluator(Gpu gpu, Nvrtc nvrtc, CompileCache cache, Suite suite, Baseline against, EvalSettings settings,
                     Task task) {
        this.task = task.under(settings);
        this.gpu = gpu;
        this.suite = suite;
        this.settings = settings;
        task.checkSuite(suite.name(), suite.shapes());
        this.cases = task.cases(settings);
        this.tolerance = task.tolerance(settings);
        this.trusted = new TrustedKernels(gpu, nvrtc, cache, task);
        this.builds = new Builds(nvrtc, cache);
        this.bench = new Workbench(gpu, suite.shapes(), settings.measurement().inputSets(), task);
        this.bounds = ShapeDraw.Bounds.of(suite.shapes());
        bench.place(secrets.nextLong());
        this.gate = new LaunchGate(gpu, trusted);
        this.correctness = new CorrectnessCheck(gpu, trusted, bench, gate, tolerance);
        this.timer = new InterleavedTimer(gpu, bench, trusted, gate, settings.measurement(), ablation);
        this.preflight = new Preflight(nvrtc, gpu.info().arch(), gpu.info().sms(), suite, task);
        // Before the baseline's check: its launches get deadlines too (from the floor alone, nothing timed yet).
        this.deadline = LaunchDeadline.of(settings.limits());
        this.baseline = against instanceof Baseline.Vendor(var cudnn) ? vendor(cudnn)
                : file(((Baseline.File) against).file(), nvrtc, cache);
        this.audit = new TimedLaunchAudit(gpu, trusted, bench, tolerance,
                suite.shapes().stream().mapToLong(Shape::rows).max().orElseThrow(), ablation);
        this.baselineLaunchMs = timeBaselineLaunches();
    }

    /** cuDNN, run once on every shape: its own error is recorded, never judged. */
    private BaselineRun vendor(Cudnn cudnn) {
        task.vendorCannotServe().ifPresent(why -> {
            throw KevoException.input(why + ": judge against a kernel file (baseline: auto or "
                    + "evaluator/baselines/NAME.cu)");
        });
        CudnnBaselineRun vendor = CudnnBaselineRun.of(cudnn, gpu, task, suite.shapes());
        try {
            // The file baseline's check cases: every worker start pays for this, and the start has a budget.
            vendor.measureErrors(correctness, BASELINE_CASES, BASELINE_CHECK_SEED);
        } catch (Rejection r) {
            throw KevoException.environment("cuDNN " + cudnn.location() + " failed its start-up run: "
                    + r.verdict().id() + ": " + r.getMessage());
        }
        return vendor;
    }

    /** A kernel-file baseline, checked like a candidate once per device (kevo's cache remembers it passed). */
    private BaselineRun file(KernelFile baselineFile, Nvrtc nvrtc, CompileCache cache) {
        try {
            LoadedFile base = load(baselineFile);
            // The check depends only on these; once passed on this device it is not repeated on every worker start.
            String passedBefore = String.join("\0", "baseline passed", baselineFile.source(), gpu.info().name(),
                    gpu.info().driverVersion(), nvrtc.version(), suite.shapes().toString(), BASELINE_CASES.toString(),
                    tolerance.toString());
            if (!cache.remembers(passedBefore)) {
                checkAll(base, BASELINE_CASES, BASELINE_CHECK_SEED, false, Phase.Listener.NONE, null).stream()
                        .filter(r -> !r.verdict().passed()).findFirst().ifPresent(r -> {
                            throw new Rejection(r.verdict(), r.shape() + ": " + r.detail());
                        });
                cache.remember(passedBefore);
            }
            return new FileBaselineRun(base);
        } catch (Rejection r) {
            throw KevoException.input("baseline " + baselineFile.name() + " is not usable: " + r.verdict().id()
                    + ": " + r.getMessage());
        }
    }

    /** One launch of the baseline per shape, wall time with synchronisation: deadlines scale with it. */
    private double[] timeBaselineLaunches() {
        List<Shape> shapes = suite.shapes();
        double[] ms = new double[shapes.size()];
        for (int s = 0; s < shapes.size(); s++) {
            bench.reserveWorkspace(baseline.workspaceBytes(s));
            bench.generate(trusted, 0, shapes.get(s), BASELINE_TIMING_SEED, InputCase.NORMAL_1);
            gpu.synchronize();
            long start = System.nanoTime();
            baseline.run(s, bench.bindings(0, shapes.get(s)));
            gpu.synchronize();
            ms[s] = (System.nanoTime() - start) / 1e6;
        }
        return ms;
    }

    public Suite suite() {
        return suite;
    }

    public EvalSettings settings() {
        return settings;
    }

    /**
     * How one evaluation runs beyond the suite's checks and timing: a replayed timing secret (else a fresh one), a
     * first launch's time ({@code cold}), a cubin compiled ahead, champion confirmation's checks ({@code atScale}),
     * and a cascade's first step ({@code screen}: the shapes timed first and the bar for timing the rest).
     */
    public record Run(Optional<Long> timingSecret, boolean cold, Optional<Compilation> compiledAhead, boolean atScale,
                      Optional<Screen> screen) {
        public static Run plain() {
            return new Run(Optional.empty(), false, Optional.empty(), false, Optional.empty());
        }

        /**
         * The run that checks the shapes {@code judged} was checked on again: its timing secret draws them, and its
         * held-out shapes were drawn when it was judged at scale. What a sanitizer pass after an evaluation runs.
         */
        public static Run replaying(CandidateResult judged) {
            return plain().withTimingSecret(judged.timingSecret()).withAtScale(judged.atScaleShapes() != null);
        }

        /** This run replaying a recorded timing secret ({@code null}: a fresh one). */
        public Run withTimingSecret(Long value) {
            return new Run(Optional.ofNullable(value), cold, compiledAhead, atScale, screen);
        }

        public Run withCold(boolean value) {
            return new Run(timingSecret, value, compiledAhead, atScale, screen);
        }

        /** This run loading {@code value} instead of compiling ({@code null}: compile as always). */
        public Run withCompiledAhead(Compilation value) {
            return new Run(timingSecret, cold, Optional.ofNullable(value), atScale, screen);
        }

        public Run withAtScale(boolean value) {
            return new Run(timingSecret, cold, compiledAhead, value, screen);
        }

        /** This run under a cascade's first step ({@code null}: timed on every shape). */
        public Run withScreen(Screen value) {
            return new Run(timingSecret, cold, compiledAhead, atScale, Optional.ofNullable(value));
        }
    }

    /**
     * Evaluates one kernel file as {@code run} says; {@code phases} is told when each phase starts and how long its
     * work may take. Inputs derive from {@code inputSeed}, so the same seed replays the same checks. Which timed
     * launches are checked, and where each timed input is salted, derive from a timing secret drawn afresh for every
     * evaluation or replayed from {@code run}: a kernel that recovered the input seed from its inputs learns nothing
     * about them. Every evaluation also checks the fresh shapes its timing secret draws ({@link BeyondSuite#fresh}).
     */
    public CandidateResult evaluate(KernelFile file, long inputSeed, Run run, Phase.Listener phases) {
        long start = System.nanoTime();
        PhaseClock clock = new PhaseClock(ablation.deadlines() ? phases::entered : phases);
        long secret = run.timingSecret().orElseGet(secrets::nextLong);
        CandidateResult result = checkAndTime(file, inputSeed, secret, run, clock);
        clock.entered(null);
        return result.toBuilder().evaluationMs((System.nanoTime() - start) / 1e6).phaseMs(clock.spent()).build();
    }

    /** True once a candidate's fault has made the CUDA context unusable: this evaluator can do no more. */
    public boolean contextLost() {
        return contextLostBy != null;
    }

    private CandidateResult checkAndTime(KernelFile file, long inputSeed, long timingSecret, Run run,
                                         PhaseClock phases) {
        boolean cold = run.cold();
        if (contextLostBy != null) {
            throw KevoException.environment("the GPU context was lost to a fault in " + contextLostBy
                    + "; evaluate the remaining files in a new run");
        }
        String path = file.path() == null ? null : file.path().toString();
        // The buffers move for every evaluation, replayably: a replayed timing secret puts them where they were.
        bench.place(timingSecret);
        LoadedFile loaded;
        try {
            phases.entered(Phase.COMPILE);
            loaded = load(file, run.compiledAhead());
        } catch (Rejection r) {
            return CandidateResult.rejected(file.name(), path, file.description(), r.verdict(), r.getMessage(),
                    inputSeed);
        }
        try {
            phases.entered(Phase.CHECK);
            double[] slowestCheckMs = new double[suite.shapes().size()];
            // The check's parts, so that a record says which of them a suite's cost is in.
            long partStart = System.nanoTime();
            List<ShapeResult> shapes = checkAll(loaded, cases, inputSeed, cold, phases, slowestCheckMs);
            phases.part("suite", partStart);
            if (firstFailed(shapes) == null) {
                partStart = System.nanoTime();
                shapes = checkInPlainBuffers(loaded, shapes, inputSeed, phases);
                phases.part("plain", partStart);
            }
            ShapeResult failed = firstFailed(shapes);
            String detail = failed == null ? null : failed.shape() + ": " + failed.detail();
            BeyondSuiteResults beyond = BeyondSuiteResults.NONE;
            PlanLedger ledger = new PlanLedger(gpu.info().sms());
            if (failed == null) {
                for (int s = 0; s < shapes.size(); s++) {
                    ledger.passed(loaded.plans().get(s).planIndex(), suite.shapes().get(s), gpu.info().sms(), true,
                            shapes.get(s).deterministic());
                }
                partStart = System.nanoTime();
                beyond = checkBeyondSuite(loaded, inputSeed, timingSecret, run.atScale(), ledger, phases);
                phases.part("beyond", partStart);
                failed = beyond.firstFailed();
                detail = failed == null ? null : beyond.label(failed) + ": " + failed.detail();
            }
            String screenedOut = null;
            if (failed == null) {
                phases.entered(Phase.TIMING);
                phases.expect(deadline.minimumSeconds() + settings.measurement().settleMillis() / 1000, "settling");
                timer.settle();
                List<Integer> first = screenFirst(run.screen());
                shapes = timeAll(loaded, shapes, first, inputSeed, timingSecret, phases, slowestCheckMs);
                failed = firstFailed(shapes);
                if (failed == null && run.screen().isPresent()) {
                    screenedOut = screenedOut(run.screen().get(), shapes, first.size());
                }
                if (failed == null && screenedOut == null) {
                    List<Integer> rest = new ArrayList<>();
                    for (int s = 0; s < suite.shapes().size(); s++) {
                        if (!first.contains(s)) {
                            rest.add(s);
                        }
                    }
                    shapes = timeAll(loaded, shapes, rest, inputSeed, timingSecret, phases, slowestCheckMs);
                    failed = firstFailed(shapes);
                }
                shapes = withBaselineErrors(shapes);
                detail = failed == null ? screenedOut : failed.shape() + ": " + failed.detail();
            }
            Verdict verdict = failed != null ? failed.verdict() : screenedOut != null ? Verdict.SCREENED : Verdict.PASS;
            List<PlanJudgement> judged = ledger.judgements();
            CandidateResult.Builder result = CandidateResult.builder(file.name(), verdict, inputSeed).path(path)
                    .description(file.description()).detail(detail).timingSecret(timingSecret)
                    .freshShapes(beyond.fresh()).atScale(beyond.atScale(), beyond.note())
                    .deterministic(deterministic(shapes, beyond, judged)).screen(run.screen().orElse(null));
            if (verdict.passed()) {
                result.score(Score.over(shapes)).judgedElements(beyond.judgedElements(shapes)).plans(judged);
            }
            return result.build(builds.of(loaded.compilation(), run.atScale() && verdict.passed()))
                    .compiled(loaded.compilation().time().toNanos() / 1e6,
                    Preflight.blankToNull(loaded.compilation().log()), loaded.resources()).shapes(shapes).build();
        } catch (Rejection r) {
            // Only sticky faults get here: the context is gone, so nothing more can be measured.
            return CandidateResult.rejected(file.name(), path, file.description(), r.verdict(), r.getMessage(),
                    inputSeed);
        } finally {
            if (contextLostBy == null) {
                loaded.module().close();
            }
        }
    }

    /**
     * True when every suite shape repeated its output bit for bit, false when one did not or a plan repeated beyond the
     * suite did not (on a drawn shape, or on the few-row twin its plan's every case ran on); null when not every suite
     * shape was tried.
     */
    private static Boolean deterministic(List<ShapeResult> shapes, BeyondSuiteResults beyond,
                                         List<PlanJudgement> plans) {
        if (java.util.stream.Stream.concat(shapes.stream(), beyond.all())
                .anyMatch(s -> Boolean.FALSE.equals(s.deterministic()))
                || plans.stream().anyMatch(p -> Boolean.FALSE.equals(p.deterministic()))) {
            return false;
        }
        return shapes.stream().allMatch(s -> s.deterministic() != null) ? true : null;
    }

    private LoadedFile load(KernelFile file) {
        return load(file, Optional.empty());
    }

    private LoadedFile load(KernelFile file, Optional<Compilation> compiledAhead) {
        Preflight.Passed passed = preflight.run(file, compiledAhead);
        Compilation compilation = passed.compilation();
        List<ResolvedPlan> plans = passed.plans();
        Module module;
        try {
            module = gpu.load(compilation);
        } catch (CudaError e) {
            throw new Rejection(Verdict.COMPILE_ERROR, e.getMessage());
        }
        PlanRunner runner = new PlanRunner(gpu, module);
        try {
            plans.forEach(runner::prepare);
        } catch (Rejection r) {
            module.close();
            throw r;
        }
        return new LoadedFile(file, compilation, module, runner, plans);
    }

    /**
     * Correctness on every shape and case; a sticky fault ends the evaluation (the context is gone). Each case's
     * deadline goes to {@code phases} first; {@code slowestMs}, when given, gets each shape's slowest launch.
     */
    private List<ShapeResult> checkAll(LoadedFile loaded, List<InputCase> cases, long inputSeed, boolean cold,
                                       Phase.Listener phases, double[] slowestMs) {
        List<ShapeResult> results = new ArrayList<>();
        List<Shape> shapes = suite.shapes();
        for (int s = 0; s < shapes.size(); s++) {
            int index = s;
            ShapeResult checked = checkShape(correctness, loaded, shapes.get(s), loaded.plans().get(s), cases,
                    c -> InputSalt.CHECK_CASE.derive(inputSeed, index, c.ordinal()), checkSeconds(s), cold, true,
                    phases, null);
            if (slowestMs != null && checked.checkLaunchMs() != null) {
                slowestMs[s] = checked.checkLaunchMs();
            }
            results.add(checked);
        }
        return results;
    }

    /**
     * One shape on every case, through {@code check} (whose buffers hold the shape): passed, with its slowest checked
     * launch and, with {@code repeat}, whether a second launch on one input wrote the same bits; or the first
     * failure. A sticky fault ends the evaluation (the context is gone), named by {@code label} when the shape is
     * one drawn beyond the suite (null for a suite shape).
     */
    private ShapeResult checkShape(CorrectnessCheck check, LoadedFile loaded, Shape shape, ResolvedPlan plan,
                                   List<InputCase> cases, ToLongFunction<InputCase> caseSeeds, double seconds,
                                   boolean cold, boolean repeat, Phase.Listener phases, String label) {
        double relL2 = 0;
        double maxAbs = 0;
        double slowest = 0;
        Double coldMs = null;
        try {
            Boolean repeats = null;
            for (InputCase inputCase : cases) {
                phases.expect(seconds, "case " + inputCase.id() + " of " + shape);
                CorrectnessCheck.CaseResult r = check.check(loaded.runner(), plan, shape,
                        caseSeeds.applyAsLong(inputCase), inputCase);
                slowest = Math.max(slowest, r.launchMs());
                relL2 = Math.max(relL2, r.relativeL2());
                maxAbs = Math.max(maxAbs, r.maxAbsError());
                if (cold && coldMs == null) {
                    coldMs = r.launchWallMs();
                }
                // The repeat right after the first case, on its input: an ordinary one (normal-1 unless the settings
                // leave it out), whose sums change with their order. The last case, lowest-mask, once served, and a
                // row of one finite column summed exactly whatever the order.
                if (repeat && inputCase == cases.getFirst()) {
                    phases.expect(seconds, "repeated launch of " + shape);
                    repeats = ablation.repeat() ? null : check.repeatsExactly(loaded.runner(), plan, shape, inputCase);
                    if (Boolean.FALSE.equals(repeats) && settings.launchChecks().requireDeterministic()) {
                        throw new Rejection(Verdict.NONDETERMINISTIC, "launched twice on the input of case "
                                + inputCase.id() + ", it wrote different bits (require_deterministic is on)");
                    }
                }
            }
            return ShapeResult.checked(shape.toString(), plan.planIndex() + 1, relL2, maxAbs, coldMs)
                    .withCheckLaunches(slowest, repeats);
        } catch (Rejection r) {
            if (r.contextLost()) {
                contextLostBy = loaded.file().name();
                throw label == null ? r : new Rejection(r.verdict(), label + ": " + r.getMessage(), true);
            }
            return ShapeResult.failed(shape.toString(), r.verdict(), r.getMessage());
        }
    }

    /**
     * Every plan the suite reaches, once more on the smallest suite shape that reaches it, in buffers a user's program
     * would have: plain allocations of exactly the shape's size ({@link PlainBuffers}), on one case (the cases taken
     * in turn across plans). A kernel honest only in kevo's guarded, shifted buffers fails here. A failure replaces
     * that shape's result.
     */
    private List<ShapeResult> checkInPlainBuffers(LoadedFile loaded, List<ShapeResult> checked, long inputSeed,
                                                  Phase.Listener phases) {
        List<ShapeResult> results = new ArrayList<>(checked);
        List<Integer> chosen = SanitizedRun.smallestPerPlan(loaded.plans(), suite.shapes());
        for (int k = 0; k < chosen.size(); k++) {
            int s = chosen.get(k);
            Shape shape = suite.shapes().get(s);
            ResolvedPlan plan = loaded.plans().get(s);
            InputCase inputCase = cases.get(k % cases.size());
            phases.expect(checkSeconds(s), "case " + inputCase.id() + " of " + shape + " in plain buffers");
            try (PlainBuffers plain = new PlainBuffers(gpu, task, shape, plan.workspaceBytes())) {
                correctness.check(loaded.runner(), plan, shape, InputSalt.PLAIN_CASE.derive(inputSeed, s, k),
                        inputCase, plain);
            } catch (Rejection r) {
                if (r.contextLost()) {
                    contextLostBy = loaded.file().name();
                    throw r;
                }
                results.set(s, ShapeResult.failed(shape.toString(), r.verdict(), r.getMessage()));
                return results;
            }
        }
        return results;
    }

    private static ShapeResult firstFailed(List<ShapeResult> shapes) {
        return shapes == null ? null : shapes.stream().filter(s -> !s.verdict().passed()).findFirst().orElse(null);
    }

    /**
     * The shapes beyond the suite: the fresh ones of this evaluation and, {@code atScale}, the held-out ones, every plan
     * again at the other multiprocessor counts ({@link #checkAtOtherCounts}), then the at-scale shapes
     * ({@link #checkAtScale}), each drawn from the timing secret and checked like a suite shape, untimed (on
     * {@link #freshCases}, or every case where the shape's plan has not yet had them; the held-out and at-scale ones on
     * every case); every shape gets its verdict, and the first failure rejects the candidate.
     */
    private BeyondSuiteResults checkBeyondSuite(LoadedFile loaded, long inputSeed, long timingSecret,
                                                boolean atScale, PlanLedger ledger, Phase.Listener phases) {
        BeyondSuite wanted = settings.beyondSuite();
        List<ShapeDraw.Drawn> freshDrawn = ShapeDraw.fresh(timingSecret, wanted.fresh(), bounds);
        List<ShapeResult> fresh = checkDrawn(loaded, freshDrawn, 0, BeyondSuiteResults.FRESH, false, timingSecret,
                inputSeed, ledger, phases);
        if (!atScale || firstFailed(fresh) != null) {
            return new BeyondSuiteResults(fresh, null, null);
        }
        List<ShapeDraw.Drawn> heldDrawn = ShapeDraw.heldOut(timingSecret, wanted, bounds);
        List<ShapeResult> scale = new ArrayList<>(checkDrawn(loaded, heldDrawn, BeyondSuite.MAX_DRAWN,
                BeyondSuiteResults.HELD_OUT, true, timingSecret, inputSeed, ledger, phases));
        if (firstFailed(scale) != null) {
            return new BeyondSuiteResults(fresh, scale, null);
        }
        List<Shape> checked = new ArrayList<>(suite.shapes());
        java.util.stream.Stream.concat(freshDrawn.stream(), heldDrawn.stream()).map(ShapeDraw.Drawn::shape)
                .filter(shape -> !bounds.exceeds(shape)).forEach(checked::add);
        List<Shape> probes = PlanProbe.unreached(ledger.shapesByPlan().keySet(), bounds,
                shape -> preflight.planIndex(loaded.file(), shape));
        for (int k = 0; k < probes.size(); k++) {
            Shape probe = probes.get(k);
            String label = BeyondSuiteResults.label(BeyondSuiteResults.PROBE, probe);
            ShapeResult result = checkBeyond(loaded, correctness, probe, null, 3 * BeyondSuite.MAX_DRAWN + k, label,
                    true, inputSeed, ledger, phases);
            scale.add(result);
            if (!result.verdict().passed()) {
                return new BeyondSuiteResults(fresh, scale, null, label);
            }
            checked.add(probe);
        }
        ShapeResult otherCounts = checkAtOtherCounts(loaded, checked, inputSeed, ledger, phases);
        if (otherCounts != null) {
            scale.add(otherCounts);
            return new BeyondSuiteResults(fresh, scale, null, "shape " + otherCounts.shape() + " at another SM count");
        }
        return checkAtScale(loaded, fresh, scale, inputSeed, timingSecret, ledger, phases);
    }

    /**
     * The at-scale shapes, past 2^31 elements, in buffers of their own freed right after: the configured one, then
     * for every plan reached so far one that reaches it with columns a multiple of 4 and one with odd columns
     * ({@link AtScaleShapes}); each on every case. A GPU that cannot hold them leaves them unjudged, with one line
     * saying so, and every plan without a shape at scale gets a line saying why.
     */
    private BeyondSuiteResults checkAtScale(LoadedFile loaded, List<ShapeResult> fresh, List<ShapeResult> scale,
                                            long inputSeed, long timingSecret, PlanLedger ledger,
                                            Phase.Listener phases) {
        Shape big = Shape.parse(settings.beyondSuite().atScale());
        AtScaleShapes perPlan = AtScaleShapes.find(ledger.shapesByPlan(), big,
                shape -> preflight.planIndex(loaded.file(), shape));
        perPlan.missing().forEach(ledger::notJudged);
        List<Shape> shapes = new ArrayList<>(List.of(big));
        perPlan.shapes().stream().filter(s -> !s.equals(big)).forEach(shapes::add);
        phases.expect(deadline.check(estimatedBaselineMs(big)), "buffers for " + big);
        Workbench own;
        try {
            own = new Workbench(gpu, shapes, 1, task);
            own.place(timingSecret);
        } catch (KevoException | CudaError e) {
            String why = BeyondSuiteResults.label(BeyondSuiteResults.AT_SCALE, big) + " (" + big.elements()
                    + " elements) not judged: " + e.getMessage();
            ledger.shapesByPlan().keySet().forEach(p -> ledger.notJudged(p, "no shape past 2^31 elements: " + why));
            return new BeyondSuiteResults(fresh, scale, why);
        }
        try (own) {
            CorrectnessCheck check = new CorrectnessCheck(gpu, trusted, own, gate, tolerance);
            for (int k = 0; k < shapes.size(); k++) {
                Shape shape = shapes.get(k);
                // The configured shape on every case, as always; each plan's own on the fresh shapes' cases, as what
                // depends on the values its plan had at smaller sizes.
                ShapeResult result = checkBeyond(loaded, check, shape, null, 2 * BeyondSuite.MAX_DRAWN + k,
                        BeyondSuiteResults.label(BeyondSuiteResults.AT_SCALE, shape), k == 0, inputSeed, ledger,
                        phases);
                scale.add(result);
                if (!result.verdict().passed()) {
                    break;
                }
            }
        }
        return new BeyondSuiteResults(fresh, scale, null);
    }

    /**
     * The cases a fresh shape is checked on: those of {@link #FRESH_CASES} the settings check, else the first they
     * check. Fresh shapes are there for what depends on the shape (indexing, tails, plans), which any input shows; what
     * depends on the values is the suite's every case, which a plan no suite shape reaches gets on the first fresh
     * shape that reaches it. Every case on every fresh shape cost a tenth of a candidate's evaluation
     * (bench/results/hardening-round3b-h100/round3-costs-h100.json), two keep it within budget.
     */
    private List<InputCase> freshCases() {
        List<InputCase> chosen = FRESH_CASES.stream().filter(cases::contains).toList();
        return chosen.isEmpty() ? List.of(cases.getFirst()) : chosen;
    }

    /** Ordinary values, and a causal mask, whose boundary moves with the row: indexing shows on both. */
    private static final List<InputCase> FRESH_CASES = List.of(InputCase.NORMAL_4, InputCase.CAUSAL);

    /**
     * Drawn shapes in order, every one to its verdict, on every case ({@code everyCase}) or {@link #freshCases};
     * {@code first} numbers their inputs apart from other kinds'. Shapes the suite's buffers cannot hold are checked in
     * buffers of their own, allocated once for all of them.
     */
    private List<ShapeResult> checkDrawn(LoadedFile loaded, List<ShapeDraw.Drawn> drawn, int first, String kind,
                                         boolean everyCase, long timingSecret, long inputSeed, PlanLedger ledger,
                                         Phase.Listener phases) {
        List<Shape> beyond = drawn.stream().map(ShapeDraw.Drawn::shape).filter(bounds::exceeds).toList();
        Workbench own = null;
        CorrectnessCheck ownCheck = null;
        List<ShapeResult> results = new ArrayList<>();
        try {
            for (int k = 0; k < drawn.size(); k++) {
                ShapeDraw.Drawn d = drawn.get(k);
                String label = BeyondSuiteResults.label(kind, d.shape());
                CorrectnessCheck check = correctness;
                if (bounds.exceeds(d.shape())) {
                    if (own == null) {
                        phases.expect(deadline.check(estimatedBaselineMs(d.shape())), "buffers for " + beyond);
                        own = new Workbench(gpu, beyond, 1, task);
                        own.place(timingSecret);
                        ownCheck = new CorrectnessCheck(gpu, trusted, own, gate, tolerance);
                    }
                    check = ownCheck;
                }
                results.add(checkBeyond(loaded, check, d.shape(), d.regime(), first + k, label, everyCase,
                        inputSeed, ledger, phases));
            }
        } finally {
            if (own != null) {
                own.close();
            }
        }
        return results;
    }

    /**
     * One shape beyond the suite: its plan (a shape no plan covers is a plan error), prepared, then checked on every case
     * where {@code everyCase}, else on {@link #freshCases}. A plan that has not yet had every case gets them first on the
     * fewest rows of the shape's columns that take the same plan: what depends on the values shows
     * there as well, at a fraction of the cost ({@link PlanProbe#twin}). The repeat a plan has not had runs on the shape itself: a sum whose
     * order changes from launch to launch shows on many rows, and on one short row may not.
     */
    private ShapeResult checkBeyond(LoadedFile loaded, CorrectnessCheck check, Shape shape, ShapeRegime regime,
                                    int index, String label, boolean everyCase, long inputSeed, PlanLedger ledger,
                                    Phase.Listener phases) {
        ShapeResult result;
        try {
            ResolvedPlan plan = preflight.plan(loaded.file(), shape);
            loaded.runner().prepare(plan);
            int p = plan.planIndex();
            if (!everyCase && ledger.owesAllCases(p)) {
                Shape small = PlanProbe.twin(shape, p, bounds,
                        candidate -> preflight.planIndex(loaded.file(), candidate));
                ResolvedPlan smallPlan = preflight.plan(loaded.file(), small);
                loaded.runner().prepare(smallPlan);
                ShapeResult owed = checkShape(small.equals(shape) ? check : correctness, loaded, small, smallPlan, cases,
                        c -> InputSalt.TWIN_CASE.derive(inputSeed, index, c.ordinal()),
                        deadline.check(estimatedBaselineMs(small)), false, false, phases, label + " (plan "
                                + (p + 1) + "'s every case on " + small + ")");
                if (!owed.verdict().passed()) {
                    return withRegime(ShapeResult.failed(shape.toString(), owed.verdict(), "plan " + (p + 1)
                            + "'s every case on " + small + ": " + owed.detail()), regime);
                }
                ledger.passed(p, small, gpu.info().sms(), true, null);
            }
            result = checkShape(check, loaded, shape, plan, everyCase ? cases : freshCases(),
                    c -> InputSalt.BEYOND_CASE.derive(inputSeed, index, c.ordinal()),
                    deadline.check(estimatedBaselineMs(shape)), false, ledger.owesRepeat(p), phases, label);
            if (result.verdict().passed()) {
                ledger.passed(p, shape, gpu.info().sms(), everyCase, result.deterministic());
            }
        } catch (Rejection r) {
            if (r.contextLost()) {
                throw r;
            }
            result = ShapeResult.failed(shape.toString(), r.verdict(), r.getMessage());
        }
        return withRegime(result, regime);
    }

    private static ShapeResult withRegime(ShapeResult result, ShapeRegime regime) {
        return regime == null ? result : result.withRegime(regime);
    }

    /**
     * Every plan of {@code shapes} (all passed at the device's own count) with its expressions resolved for each other
     * multiprocessor count of the settings: only the launch changes, on this GPU. A shape whose launches come out the
     * same needs no launch; one whose plan cannot launch here at that count (a cooperative grid larger than fits) is
     * recorded as not judged there; the others are checked on {@link #freshCases}. The first failure, its detail
     * naming the count, or null when none failed.
     */
    private ShapeResult checkAtOtherCounts(LoadedFile loaded, List<Shape> shapes, long inputSeed, PlanLedger ledger,
                                           Phase.Listener phases) {
        int own = gpu.info().sms();
        int index = 0;
        Map<Shape, ResolvedPlan> atOwn = new LinkedHashMap<>();
        shapes.forEach(shape -> atOwn.put(shape, preflight.plan(loaded.file(), shape)));
        for (int count : settings.beyondSuite().smCounts()) {
            if (count == own) {
                continue;
            }
            for (Shape shape : atOwn.keySet()) {
                ResolvedPlan here = atOwn.get(shape);
                ResolvedPlan there;
                try {
                    there = preflight.plan(loaded.file(), shape, count);
                } catch (Rejection r) {
                    continue;  // no plan, or one past the target's limits: a package refuses the shape there too
                }
                if (there.equals(here)) {
                    ledger.passed(there.planIndex(), shape, count, false, null);
                    continue;
                }
                String label = shape + " with the plan resolved for " + count + " SMs (plan " + (there.planIndex() + 1)
                        + ")";
                try {
                    loaded.runner().prepare(there);
                } catch (Rejection r) {
                    if (r.contextLost()) {
                        throw r;
                    }
                    ledger.cannotLaunch(there.planIndex(), count, r.getMessage());
                    continue;
                }
                int salt = index++;
                ShapeResult result = checkShape(correctness, loaded, shape, there, freshCases(),
                        c -> InputSalt.OTHER_SMS_CASE.derive(inputSeed, salt, c.ordinal()),
                        deadline.check(estimatedBaselineMs(shape)), false, false, phases, label);
                if (!result.verdict().passed()) {
                    return result.withVerdict(result.verdict(), count + " SMs (plan " + (there.planIndex() + 1)
                            + "): " + result.detail());
                }
                ledger.passed(there.planIndex(), shape, count, false, null);
            }
        }
        return null;
    }

    /**
     * What the baseline's launch would take on a shape it was never timed on, for that shape's deadline: the
     * slowest of its suite launches, or its rate on the largest suite shape carried to this one's size, whichever
     * is longer.
     */
    private double estimatedBaselineMs(Shape shape) {
        List<Shape> shapes = suite.shapes();
        int largest = 0;
        double slowest = 0;
        for (int s = 0; s < shapes.size(); s++) {
            largest = shapes.get(s).elements() > shapes.get(largest).elements() ? s : largest;
            slowest = Math.max(slowest, baselineLaunchMs[s]);
        }
        return Math.max(slowest, baselineLaunchMs[largest] * shape.elements() / shapes.get(largest).elements());
    }

    /** Seconds a checked launch of shape {@code s} may take (before the baseline is timed: the floor only). */
    private double checkSeconds(int s) {
        return deadline.check(baselineLaunchMs == null ? 0 : baselineLaunchMs[s]);
    }

    /** The suite indices of the screen's shapes, in the suite's order; none without a screen. */
    private List<Integer> screenFirst(Optional<Screen> screen) {
        List<Integer> first = new ArrayList<>();
        if (screen.isPresent()) {
            for (int s = 0; s < suite.shapes().size(); s++) {
                if (screen.get().shapes().contains(suite.shapes().get(s).toString())) {
                    first.add(s);
                }
            }
        }
        return first;
    }

    /** Why the cascade stops here, or null when the candidate reached the bar on the screen's shapes. */
    private String screenedOut(Screen screen, List<ShapeResult> timed, int screenShapes) {
        Double floor = screen.floorOver(timed);
        if (screenShapes == 0 || floor == null || floor >= screen.floorBar()) {
            return null;
        }
        return String.format(java.util.Locale.ROOT, "timed on the cascade's %d shapes first (%s): memory floor %.3f"
                        + " there, below the bar %.3f that %s set; the other %d shapes were checked, not timed",
                screenShapes, String.join(", ", screen.shapes()), floor, screen.floorBar(), screen.against(),
                suite.shapes().size() - screenShapes);
    }

    /** Times the shapes at {@code indices}; the others keep what {@code checked} holds for them. */
    private List<ShapeResult> timeAll(LoadedFile candidate, List<ShapeResult> checked, List<Integer> indices,
                                      long inputSeed, long timingSecret, Phase.Listener phases,
                                      double[] slowestCheckMs) {
        List<ShapeResult> results = new ArrayList<>(checked);
        List<Shape> shapes = suite.shapes();
        for (int s : indices) {
            Shape shape = shapes.get(s);
            ResolvedPlan plan = candidate.plans().get(s);
            phases.expect(checkSeconds(s), "timing set-up of " + shape);
            bench.reserveWorkspace(Math.max(plan.workspaceBytes(), baseline.workspaceBytes(s)));
            long[] setSeeds = new long[bench.inputSets()];
            InputCase[] setCases = new InputCase[bench.inputSets()];
            for (int set = 0; set < bench.inputSets(); set++) {
                setSeeds[set] = InputSalt.TIMING_SET.derive(inputSeed, s, set);
                setCases[set] = TimedLaunchAudit.timingCase(s, set);
                bench.generate(trusted, set, shape, setSeeds[set], setCases[set]);
            }
            ShapeResult result = checked.get(s);
            try {
                result = timeShape(candidate, result, s, setSeeds, setCases, timingSecret, phases, slowestCheckMs[s]);
                if (result.verdict().passed()) {
                    phases.expect(checkSeconds(s), "check after timing of " + shape);
                    verifyAfterTiming(candidate, plan, shape, InputSalt.AFTER_TIMING.derive(inputSeed, s, 0));
                }
            } catch (Rejection r) {
                if (r.contextLost()) {
                    contextLostBy = candidate.file().name();
                    throw r;
                }
                result = result.withVerdict(r.verdict(), r.getMessage());
            }
            results.set(s, result);
        }
        return results;
    }

    /** The baseline's recorded error on each timed shape (the vendor's; a kernel file's passed its check). */
    private List<ShapeResult> withBaselineErrors(List<ShapeResult> shapes) {
        List<ShapeResult> out = new ArrayList<>();
        for (int s = 0; s < shapes.size(); s++) {
            Double error = baseline.relativeL2(s);
            ShapeResult r = shapes.get(s);
            out.add(error == null || r.baseline() == null ? r : r.withBaselineRelativeL2(error));
        }
        return out;
    }

    /**
     * Times one shape: candidate, baseline and both copies interleaved, with the candidate's timed launches
     * checked at random ({@link TimedLaunchAudit}); a candidate sample that is not one clean mode is measured
     * once more, and flagged if it stays so ({@link TimingShape}); a time no memory could deliver is rejected
     * ({@link MemoryBound}). A rejected shape keeps its timings.
     */
    private ShapeResult timeShape(LoadedFile candidate, ShapeResult checked, int s, long[] setSeeds,
                                  InputCase[] setCases, long timingSecret, Phase.Listener phases,
                                  double slowestCheckMs) {
        Shape shape = suite.shapes().get(s);
        ResolvedPlan plan = candidate.plans().get(s);
        // A copy moves what the operator must: as many bytes read as written, its inputs' and outputs' together.
        long copyBytes = task.floorBytes(shape) / 2;
        long copyElements = task.floorCopyElements(shape);
        double baseMs = baselineLaunchMs[s];
        ShapeResult result = checked;
        int checkedLaunches = 0;
        for (int attempt = 0; ; attempt++) {
            if (!ablation.persistReset()) {
                bench.resetPersistingL2();
            }
            TimedLaunchAudit.Session session = audit.start(shape, plan.workspaceBytes(), setSeeds, setCases,
                    InputSalt.TIMING_AUDIT.derive(timingSecret, s, attempt));
            // Lines the candidate pinned in L2 could help only itself (they are demoted after each of its launches,
            // and its input changes every launch) or hurt the baseline, which re-reads rows from L2: the flush
            // before the baseline's launches removes pinned lines too.
            Lineup<InterleavedTimer.Variant> variants = new Lineup<>(
                    InterleavedTimer.Variant.of("baseline", set -> baseline.run(s, bench.bindings(set, shape)),
                            InterleavedTimer.Hooks.NONE, true),
                    InterleavedTimer.Variant.of("candidate", set -> candidate.runner().run(plan, bench.bindings(set, shape)),
                            session, false),
                    InterleavedTimer.Variant.of("memcpy", set -> gpu.copy(bench.y(), bench.x(set), copyBytes), InterleavedTimer.Hooks.NONE,
                            false),
                    InterleavedTimer.Variant.of("copy kernel", set -> trusted.copy(bench.x(set), bench.y(), copyElements),
                            InterleavedTimer.Hooks.NONE, false));
            Lineup<double[]> samples = Lineup.ofTimingOrder(timer.samples(variants.inTimingOrder(),
                    rounds -> deadline.timingBatch(rounds, slowestCheckMs, baseMs), phases, "timing of " + shape));
            checkedLaunches += session.checkedLaunches();
            Lineup<Stats> stats = samples.map(Stats::of);
            boolean memcpyFaster = stats.memcpy().medianMs() <= stats.copyKernel().medianMs();
            Stats copy = memcpyFaster ? stats.memcpy() : stats.copyKernel();
            String flag = TimingShape.flag(samples.candidate());
            result = checked.withTiming(stats.candidate(), stats.baseline(), copy, memcpyFaster ? "memcpy" : "kernel")
                    .withTimingAudit(flag, checkedLaunches);
            // The timings stay on a rejected shape, as evidence of what the cheat looked like.
            phases.expect(checkSeconds(s), "checks of the timed launches of " + shape);
            try {
                session.verify();
            } catch (Rejection r) {
                return result.withVerdict(r.verdict(), r.getMessage());
            }
            String impossible = MemoryBound.violation(stats.candidate(), copy, task.op().inputBytes(shape,
                    task.dtype()), (double) task.floorBytes(shape) / task.leastBytes(shape), gpu.info());
            if (impossible != null) {
                return result.withVerdict(Verdict.FASTER_THAN_MEMORY, impossible);
            }
            double allowedMs = settings.launchChecks().slowestAllowedMs(stats.candidate().medianMs());
            if (slowestCheckMs > allowedMs) {
                return result.withVerdict(Verdict.SLOW_WHEN_CHECKED, String.format(
                        "a checked launch took %.3f ms, where its timed launches took %.4f ms (median; allowed %.3f ms:"
                                + " launch_checks.slow_factor x the median + slow_slack_ms)",
                        slowestCheckMs, stats.candidate().medianMs(), allowedMs));
            }
            if (flag == null || attempt >= 1) {
                return result;
            }
        }
    }

    /**
     * Checks the output once more on inputs no earlier launch saw, after all the timed launches: a kernel
     * that answers from an earlier launch (a cache keyed on anything but x's contents) fails here with
     * {@code stale-result}; one that has stopped working leaves y unwritten, which is skipped work, the same
     * verdict as a timed launch caught skipping ({@code timed-output-wrong}), whichever of the two checks
     * sees it first.
     */
    private void verifyAfterTiming(LoadedFile candidate, ResolvedPlan plan, Shape shape, long caseSeed) {
        try {
            correctness.check(candidate.runner(), plan, shape, caseSeed, InputCase.NORMAL_4);
        } catch (Rejection r) {
            if (r.contextLost()) {
                throw r;
            }
            Verdict verdict = r.verdict() == Verdict.UNWRITTEN_OUTPUT ? Verdict.TIMED_OUTPUT_WRONG : Verdict.STALE_RESULT;
            throw new Rejection(verdict, "after timing, " + r.verdict().id() + ": " + r.getMessage());
        }
    }

    @Override
    public void close() {
        if (contextLostBy == null) {
            baseline.close();
            audit.close();
            gate.close();
            bench.close();
            trusted.close();
        }
    }
}
