package dev.kevo.eval;

import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.BeyondSuite;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.InputCase;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Task;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A kernel file's plans run for compute-sanitizer to watch, in a worker the sanitizer started: untimed, unchecked
 * (the sanitizer's report is the judgement, and the evaluation already checked the outputs), with no baseline and
 * no cuDNN, so that the only kernels that run are the candidate's and kevo's input generator. Every plan that the
 * evaluation's shapes reach (the suite's, and the fresh and held-out ones its timing secret draws again) runs on the
 * smallest of them that reaches it and on one with odd columns ({@link #perPlan}): the sanitizer slows a kernel many
 * times over, and what it finds is in the code a plan runs and at a row's ragged end, not in how large the shape is:
 * a shape of many wide rows runs on fewer of them ({@link #fewerRows}).
 * Each runs on two input cases: an ordinary one, and one with -inf entries, which takes the branches masks take. For
 * Nsight Compute ({@link Coverage#EVERY_SHAPE_ONCE}) every suite shape runs once, on the ordinary case: a profile is
 * of a shape.
 */
public final class SanitizedRun implements AutoCloseable {
    static final List<InputCase> CASES = List.of(InputCase.NORMAL_1, InputCase.MASKED);

    /** Which launches run. */
    public enum Coverage {
        /** Each plan the evaluation's shapes reach, on its smallest and an odd one ({@link #perPlan}), both cases. */
        EVERY_PLAN,
        /** Each suite shape, once, on the first case. */
        EVERY_SHAPE_ONCE
    }

    private final Gpu gpu;
    private final Suite suite;
    private final Task task;
    private final TrustedKernels trusted;
    private final Builds builds;
    private final Preflight preflight;
    private final Coverage coverage;
    private final BeyondSuite beyond;

    /**
     * @param task the operator and the element types of x and y, which the buffers' exact sizes follow
     * @param beyond the shapes beyond the suite an evaluation draws, which this run draws again
     */
    public SanitizedRun(Gpu gpu, Nvrtc nvrtc, CompileCache cache, Suite suite, Task task, BeyondSuite beyond,
                        Coverage coverage) {
        this.beyond = beyond;
        this.coverage = coverage;
        this.gpu = gpu;
        this.suite = suite;
        this.task = task;
        this.trusted = new TrustedKernels(gpu, nvrtc, cache, task);
        this.builds = new Builds(nvrtc, cache);
        this.preflight = new Preflight(nvrtc, gpu.info().arch(), gpu.info().sms(), suite, task);
    }

    /**
     * Runs the file; PASS with the shapes it ran when every launch returned, else the verdict of what stopped it
     * (preflight, or a launch the driver failed).
     */
    public CandidateResult run(KernelFile file, long inputSeed, Evaluator.Run judged, Phase.Listener phases) {
        String path = file.path() == null ? null : file.path().toString();
        List<ShapeResult> ran = new ArrayList<>();
        Module module = null;
        boolean contextLost = false;
        try {
            phases.entered(Phase.COMPILE);
            Preflight.Passed passed = preflight.run(file);
            try {
                module = gpu.load(passed.compilation());
            } catch (CudaError e) {
                throw new Rejection(Verdict.COMPILE_ERROR, e.getMessage());
            }
            PlanRunner runner = new PlanRunner(gpu, module);
            List<Shape> shapes;
            List<ResolvedPlan> plans = new ArrayList<>();
            if (coverage == Coverage.EVERY_PLAN) {
                Map<Shape, ResolvedPlan> planned = new LinkedHashMap<>();
                for (Shape shape : judgedShapes(judged)) {
                    try {
                        planned.putIfAbsent(shape, preflight.plan(file, shape));
                    } catch (Rejection r) {
                        // a drawn shape no plan covers failed its evaluation already; nothing of it runs here
                    }
                }
                if (judged.atScale()) {
                    // the plans champion confirmation probed for, as it found them
                    java.util.Set<Integer> reached = new java.util.HashSet<>();
                    planned.values().forEach(p -> reached.add(p.planIndex()));
                    PlanProbe.unreached(reached, ShapeDraw.Bounds.of(suite.shapes()),
                                    s -> preflight.planIndex(file, s))
                            .forEach(s -> planned.putIfAbsent(s, preflight.plan(file, s)));
                }
                shapes = perPlan(planned, s -> preflight.planIndex(file, s));
                shapes.forEach(s -> plans.add(planned.computeIfAbsent(s, k -> preflight.plan(file, k))));
            } else {
                shapes = suite.shapes();
                plans.addAll(passed.plans());
            }
            List<InputCase> cases = coverage == Coverage.EVERY_PLAN ? CASES : CASES.subList(0, 1);
            List<Long> workspaces = new ArrayList<>();
            for (ResolvedPlan plan : plans) {
                runner.prepare(plan);
                workspaces.add(plan.workspaceBytes());
            }
            phases.entered(Phase.CHECK);
            try (SanitizerBench bench = new SanitizerBench(gpu, shapes, task, workspaces)) {
                for (int i = 0; i < shapes.size(); i++) {
                    ResolvedPlan plan = plans.get(i);
                    for (InputCase inputCase : cases) {
                        Inputs inputs = bench.generate(trusted, i, InputSalt.CHECK_CASE.derive(inputSeed, i,
                                inputCase.ordinal()), inputCase);
                        bench.poisonWorkspace(gpu, i);
                        try {
                            runner.run(plan, bench.bindings(i, inputs));
                            gpu.synchronize();
                        } catch (CudaError e) {
                            throw Faults.reject(e, shapes.get(i) + ": case " + inputCase.id());
                        }
                    }
                    ran.add(ShapeResult.ran(shapes.get(i).toString(), plan.planIndex() + 1));
                }
            }
            return CandidateResult.builder(file.name(), Verdict.PASS, inputSeed).path(path)
                    .description(file.description()).shapes(ran)
                    .build(builds.of(passed.compilation(), coverage == Coverage.EVERY_PLAN)).build();
        } catch (Rejection r) {
            contextLost = r.contextLost();
            return CandidateResult.builder(file.name(), r.verdict(), inputSeed).path(path)
                    .description(file.description()).detail(r.getMessage()).shapes(ran).build();
        } finally {
            if (module != null && !contextLost) {
                module.close();
            }
        }
    }

    /**
     * For each plan the shapes reach, the index of the smallest shape (fewest elements; the first of equals) that
     * reaches it, in the shapes' order.
     */
    static List<Integer> smallestPerPlan(List<ResolvedPlan> plans, List<Shape> shapes) {
        Map<Integer, Integer> byPlan = new LinkedHashMap<>();
        for (int s = 0; s < shapes.size(); s++) {
            Integer best = byPlan.get(plans.get(s).planIndex());
            if (best == null || shapes.get(s).elements() < shapes.get(best).elements()) {
                byPlan.put(plans.get(s).planIndex(), s);
            }
        }
        return byPlan.values().stream().sorted().toList();
    }

    /** The suite's shapes, then the fresh and held-out ones the evaluation {@code judged} drew from its secret. */
    private List<Shape> judgedShapes(Evaluator.Run judged) {
        List<Shape> shapes = new ArrayList<>(suite.shapes());
        judged.timingSecret().ifPresent(secret -> {
            ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(suite.shapes());
            ShapeDraw.fresh(secret, beyond.fresh(), bounds).forEach(d -> shapes.add(d.shape()));
            if (judged.atScale()) {
                ShapeDraw.heldOut(secret, beyond, bounds).forEach(d -> shapes.add(d.shape()));
            }
        });
        return shapes;
    }

    /**
     * The shapes to run, plan by plan: for each plan {@code planned} reaches, its smallest shape (fewest elements; the
     * first of equals) and the smallest with odd columns; where none of its shapes has odd columns, the smallest
     * shape with a column or a few more or fewer, odd, that the same plan takes. A ragged row end is where
     * over-reads and unguarded tails are. Each on fewer rows where it is large ({@link #fewerRows}).
     */
    static List<Shape> perPlan(Map<Shape, ResolvedPlan> planned, java.util.function.ToIntFunction<Shape> planOf) {
        Map<Integer, Shape> smallest = new java.util.TreeMap<>();
        Map<Integer, Shape> odd = new java.util.TreeMap<>();
        planned.forEach((shape, plan) -> {
            smallest.merge(plan.planIndex(), shape, (a, b) -> b.elements() < a.elements() ? b : a);
            if (shape.cols() % 2 == 1) {
                odd.merge(plan.planIndex(), shape, (a, b) -> b.elements() < a.elements() ? b : a);
            }
        });
        List<Shape> out = new ArrayList<>();
        smallest.forEach((plan, found) -> {
            Shape shape = fewerRows(found, plan, planOf);
            out.add(shape);
            Shape ragged = odd.containsKey(plan) ? odd.get(plan) : nearbyOdd(shape, plan, planOf);
            if (ragged != null) {
                ragged = fewerRows(ragged, plan, planOf);
            }
            if (ragged != null && !ragged.equals(shape)) {
                out.add(ragged);
            }
        });
        return out;
    }

    /**
     * Elements past which a plan's shape runs on fewer rows: racecheck watches every shared-memory access, and a plan
     * whose smallest shape holds hundreds of wide rows (a cluster plan's 512x262144) outruns the check phase under it.
     */
    static final long SANITIZED_ELEMENTS = 1L << 24;

    /**
     * {@code shape}, or where it holds more than {@link #SANITIZED_ELEMENTS} elements in more than one row, the same
     * columns on the fewest rows (a power of two, at least two, so that a row's stride is still exercised) that bring
     * it under that and that the same plan takes; {@code shape} itself where no such count does.
     */
    static Shape fewerRows(Shape shape, int plan, java.util.function.ToIntFunction<Shape> planOf) {
        if (shape.elements() <= SANITIZED_ELEMENTS || shape.rows() <= 2) {
            return shape;
        }
        for (long rows = 2; rows < shape.rows(); rows *= 2) {
            Shape candidate = shape.resized((int) rows, shape.cols());
            if (candidate.elements() > SANITIZED_ELEMENTS) {
                break;
            }
            if (planOf.applyAsInt(candidate) == plan) {
                return candidate;
            }
        }
        return shape;
    }

    /** How far from a shape's columns an odd count is looked for. */
    private static final int NEARBY = 15;

    private static Shape nearbyOdd(Shape shape, int plan, java.util.function.ToIntFunction<Shape> planOf) {
        for (int d = 1; d <= NEARBY; d += 2) {
            for (long cols : new long[] {(long) shape.cols() + d, (long) shape.cols() - d}) {
                if (cols >= 1 && cols <= Integer.MAX_VALUE) {
                    Shape candidate = shape.resized(shape.rows(), (int) cols);
                    if (planOf.applyAsInt(candidate) == plan) {
                        return candidate;
                    }
                }
            }
        }
        return null;
    }

    @Override
    public void close() {
        trusted.close();
    }
}
