package dev.kevo.eval;

import dev.kevo.cuda.CudaError;
import dev.kevo.cuda.Event;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.InputCase;
import dev.kevo.data.Tolerance;
import dev.kevo.data.Verdict;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;

/**
 * Runs a candidate's plan once per input case on fresh inputs and judges the output against kevo's float64
 * reference: poisoned output, guard zones, unchanged input, per-element and whole-case tolerances.
 */
final class CorrectnessCheck {
    private final Gpu gpu;
    private final TrustedKernels trusted;
    private final Workbench bench;
    private final LaunchGate gate;
    private final Tolerance tolerance;

    CorrectnessCheck(Gpu gpu, TrustedKernels trusted, Workbench bench, LaunchGate gate, Tolerance tolerance) {
        this.gpu = gpu;
        this.trusted = trusted;
        this.bench = bench;
        this.gate = gate;
        this.tolerance = tolerance;
    }

    /**
     * What one case measured: its errors, and the launch's time, as the host saw it (with the synchronisation) and as
     * the GPU's events bracketed it, queued whole before the GPU started on it.
     */
    record CaseResult(double relativeL2, double maxAbsError, double launchWallMs, double launchGpuMs) {
        /**
         * What the launch took for certain: the lesser of the two. A pause of the host (a collection, another
         * process) inflates the wall time and not the GPU's, whose events were queued with the launch before the GPU
         * started on them, so only the kernel's work counts here.
         */
        double launchMs() {
            return Math.min(launchWallMs, launchGpuMs);
        }
    }

    /** One launch of whatever is being checked, on the given buffers. */
    interface Launch {
        void run(Bindings buffers);
    }

    /** What one launch's output measured against the reference, not yet judged. */
    record Measured(CheckCounts counts, long damaged, double launchWallMs, double launchGpuMs) {
    }

    /**
     * The case on the evaluation's guarded buffers, in the input set the case takes ({@link #setOf}), so that every
     * set is a checked one.
     *
     * @throws Rejection with the verdict of the first case that fails
     */
    CaseResult check(PlanRunner runner, ResolvedPlan plan, Shape shape, long caseSeed, InputCase inputCase) {
        bench.reserveWorkspace(plan.workspaceBytes());
        return check(runner, plan, shape, caseSeed, inputCase, bench.checked(setOf(inputCase)));
    }

    /** The input set a case is checked in: the cases take the sets in turn. */
    int setOf(InputCase inputCase) {
        return inputCase.ordinal() % bench.inputSets();
    }

    /**
     * The case on {@code buffers}: the evaluation's guarded ones, or plain allocations of the shape's size.
     *
     * @throws Rejection with the verdict of the case when it fails
     */
    CaseResult check(PlanRunner runner, ResolvedPlan plan, Shape shape, long caseSeed, InputCase inputCase,
                     CheckBuffers buffers) {
        long ws = plan.workspaceBytes();
        String where = "case " + inputCase.id() + " (seed " + caseSeed + ")"
                + (buffers.where().isEmpty() ? "" : " in " + buffers.where());
        Measured measured = measure(buffers, launched -> runner.run(plan, launched), ws, shape, caseSeed, inputCase);
        CheckCounts counts = measured.counts();
        long damaged = measured.damaged();
        String at = firstBad(counts, shape);
        if (damaged > 0) {
            throw new Rejection(Verdict.OUT_OF_BOUNDS_WRITE, where + ": " + damaged
                    + " guard words around x, y or the workspace overwritten");
        }
        if (counts.inputChanged() > 0) {
            throw new Rejection(Verdict.INPUT_MODIFIED, where + ": " + counts.inputChanged() + " input elements changed"
                    + at);
        }
        if (counts.unwritten() > 0) {
            throw new Rejection(Verdict.UNWRITTEN_OUTPUT, where + ": " + counts.unwritten() + " of "
                    + shape.elements() + " outputs never written" + at);
        }
        if (counts.nonFinite() > 0) {
            throw new Rejection(Verdict.NAN_OUTPUT, where + ": " + counts.nonFinite() + " outputs NaN or Inf" + at);
        }
        double relL2 = counts.relativeL2();
        if (!counts.withinTolerance(tolerance)) {
            throw new Rejection(Verdict.WRONG_RESULT, where + ": " + counts.violations()
                    + " elements off by more than " + tolerance.absolute() + " + " + tolerance.relative()
                    + "*|ref| + 1 ulp of y's type, relative L2 error " + String.format("%.2e", relL2) + " (bound "
                    + String.format("%.2e", counts.relativeL2Bound(tolerance)) + ")" + at);
        }
        return new CaseResult(relL2, counts.maxAbsError(), measured.launchWallMs(), measured.launchGpuMs());
    }

    /**
     * Where the first bad element is, for a message: its row and column, or the output of one element (a loss's value),
     * which the comparison counts at index rows * cols; empty when none is.
     */
    private String firstBad(CheckCounts counts, Shape shape) {
        long first = counts.firstBad();
        if (first < 0) {
            return "";
        }
        if (first >= shape.elements()) {
            return ", first at " + bench.task().op().reducedOutput().map(t -> "`" + t.name() + "`")
                    .orElse("index " + first);
        }
        return ", first at row " + first / shape.cols() + " col " + first % shape.cols();
    }

    /**
     * Whether the plan writes the same bits when launched again on the input of the check of {@code lastCase}, just
     * passed (still in its input set): atomics or any other order-dependent sum give outputs that differ from launch to
     * launch, all within tolerance, which batch-invariant inference cannot use.
     */
    boolean repeatsExactly(PlanRunner runner, ResolvedPlan plan, Shape shape, InputCase lastCase) {
        int set = setOf(lastCase);
        long first = bench.outputDigest(trusted, shape);
        bench.arm(shape, plan.workspaceBytes(), set);
        try {
            runner.run(plan, bench.bindings(set, shape));
            gpu.synchronize();
        } catch (CudaError e) {
            throw Faults.reject(e, "the repeated launch");
        }
        return bench.outputDigest(trusted, shape) == first;
    }

    /**
     * Fresh inputs, poisoned output and armed guards, one launch, then the comparison with the float64 reference
     * and the guard check. Judging is the caller's: a candidate is rejected on what this finds, the vendor's
     * baseline only has its error recorded.
     */
    Measured measure(Launch launch, long ws, Shape shape, long caseSeed, InputCase inputCase) {
        return measure(bench.checked(setOf(inputCase)), launch, ws, shape, caseSeed, inputCase);
    }

    private Measured measure(CheckBuffers buffers, Launch launch, long ws, Shape shape, long caseSeed,
                             InputCase inputCase) {
        Inputs inputs = buffers.generate(trusted, shape, caseSeed, inputCase);
        buffers.arm(shape, ws);
        String where = "case " + inputCase.id() + " (seed " + caseSeed + ")";
        gpu.synchronize();
        Event before = gpu.event();
        Event after = gpu.event();
        long start = System.nanoTime();
        double gpuMs;
        // The events and the launch are queued behind a closed gate and released together, so they bracket the GPU's
        // work alone: on an idle stream they would also hold whatever the host did between them (a kernel's first
        // launch pays one-time costs of the host and driver, a collection or another process can pause it), which
        // has rejected honest seeds as slow-when-checked. A host stuck for longer than the gate waits (a second)
        // is counted again, and the wall time then bounds the launch anyway.
        try {
            gate.hold();
            try {
                gpu.record(before);
                launch.run(buffers.bindings(shape));
                gpu.record(after);
            } finally {
                gate.open();  // also when the launch call fails: the stream would otherwise wait out the gate's limit
            }
            gpu.synchronize();
            gpuMs = gpu.elapsedMillis(before, after);
        } catch (CudaError e) {
            throw Faults.reject(e, where);
        } finally {
            gpu.destroy(before);
            gpu.destroy(after);
        }
        double wallMs = (System.nanoTime() - start) / 1e6;
        trusted.reference(bench.stats(), bench.referenceScratch(), inputs, shape, caseSeed, inputCase);
        CheckCounts counts = trusted.compare(buffers.outputs(), inputs, bench.stats(), bench.checkResult(), shape,
                caseSeed, inputCase, tolerance);
        return new Measured(counts, buffers.guardDamage(trusted, shape, ws), wallMs, gpuMs);
    }
}
