package dev.kevo.eval;

import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
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
 * no cuDNN, so that the only kernels that run are the candidate's and kevo's input generator. Every plan the suite
 * reaches runs on the smallest suite shape that reaches it: the sanitizer slows a kernel many times over, and what
 * it finds is in the code a plan runs, not in how large the shape is. Each runs on two input cases: an ordinary
 * one, and one with -inf entries, which takes the branches masks take. For Nsight Compute ({@link
 * Coverage#EVERY_SHAPE_ONCE}) every suite shape runs once, on the ordinary case: a profile is of a shape.
 */
public final class SanitizedRun implements AutoCloseable {
    static final List<InputCase> CASES = List.of(InputCase.NORMAL_1, InputCase.MASKED);

    /** Which launches run. */
    public enum Coverage {
        /** Each plan the suite reaches, on the smallest shape that reaches it, on both {@link #CASES}. */
        EVERY_PLAN,
        /** Each suite shape, once, on the first case. */
        EVERY_SHAPE_ONCE
    }

    private final Gpu gpu;
    private final Suite suite;
    private final Task task;
    private final TrustedKernels trusted;
    private final Preflight preflight;
    private final Coverage coverage;

    /** @param task the operator and the element types of x and y, which the buffers' exact sizes follow */
    public SanitizedRun(Gpu gpu, Nvrtc nvrtc, CompileCache cache, Suite suite, Task task) {
        this(gpu, nvrtc, cache, suite, task, Coverage.EVERY_PLAN);
    }

    public SanitizedRun(Gpu gpu, Nvrtc nvrtc, CompileCache cache, Suite suite, Task task, Coverage coverage) {
        this.coverage = coverage;
        this.gpu = gpu;
        this.suite = suite;
        this.task = task;
        this.trusted = new TrustedKernels(gpu, nvrtc, cache, task);
        this.preflight = new Preflight(nvrtc, gpu.info().arch(), gpu.info().sms(), suite, task);
    }

    /**
     * Runs the file; PASS with the shapes it ran when every launch returned, else the verdict of what stopped it
     * (preflight, or a launch the driver failed).
     */
    public CandidateResult run(KernelFile file, long inputSeed, Phase.Listener phases) {
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
            List<Integer> chosen = coverage == Coverage.EVERY_PLAN ? smallestPerPlan(passed.plans(), suite.shapes())
                    : java.util.stream.IntStream.range(0, suite.shapes().size()).boxed().toList();
            List<InputCase> cases = coverage == Coverage.EVERY_PLAN ? CASES : CASES.subList(0, 1);
            List<Shape> shapes = chosen.stream().map(suite.shapes()::get).toList();
            List<Long> workspaces = new ArrayList<>();
            for (int s : chosen) {
                runner.prepare(passed.plans().get(s));
                workspaces.add(passed.plans().get(s).workspaceBytes());
            }
            phases.entered(Phase.CHECK);
            try (SanitizerBench bench = new SanitizerBench(gpu, shapes, task.dtype(), workspaces)) {
                for (int i = 0; i < chosen.size(); i++) {
                    int s = chosen.get(i);
                    ResolvedPlan plan = passed.plans().get(s);
                    for (InputCase inputCase : cases) {
                        trusted.generate(bench.x(i), shapes.get(i), InputSalt.CHECK_CASE.derive(inputSeed, s,
                                inputCase.ordinal()), inputCase);
                        bench.poisonWorkspace(gpu, i);
                        try {
                            runner.run(plan, Workbench.bindings(task, bench.x(i), bench.y(i), bench.workspace(i)));
                            gpu.synchronize();
                        } catch (CudaError e) {
                            throw Faults.reject(e, shapes.get(i) + ": case " + inputCase.id());
                        }
                    }
                    ran.add(ShapeResult.ran(shapes.get(i).toString(), plan.planIndex() + 1));
                }
            }
            return CandidateResult.builder(file.name(), Verdict.PASS, inputSeed).path(path)
                    .description(file.description()).shapes(ran).build();
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

    @Override
    public void close() {
        trusted.close();
    }
}
