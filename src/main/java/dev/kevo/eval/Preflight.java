package dev.kevo.eval;

import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileException;
import dev.kevo.cuda.CubinResources;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.KernelResources;
import dev.kevo.data.Precision;
import dev.kevo.data.Verdict;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ParameterTypes;
import dev.kevo.task.PlanException;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import dev.kevo.task.SourcePolicy;
import dev.kevo.task.Suite;
import dev.kevo.task.TargetLimits;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Everything about a candidate that needs no GPU: the dtypes it declares, source rules, an NVRTC compile for the
 * target, every kernel the plan names present, a plan for every shape of the suite. {@code kevo check} stops here.
 */
public final class Preflight {
    private final Nvrtc nvrtc;
    private final String arch;
    private final int sms;
    private final Suite suite;
    private final Task task;

    /** @param task the operator and dtypes being judged: a file must declare these */
    public Preflight(Nvrtc nvrtc, String arch, int sms, Suite suite, Task task) {
        this.nvrtc = nvrtc;
        this.arch = arch;
        this.sms = sms;
        this.suite = suite;
        this.task = task;
    }

    /** A candidate that passed preflight: its cubin and its plan for each shape of the suite, in order. */
    public record Passed(KernelFile file, Compilation compilation, List<ResolvedPlan> plans) {
    }

    /** @throws Rejection with the first problem found */
    Passed run(KernelFile file) {
        return run(file, Optional.empty());
    }

    /**
     * As {@link #run(KernelFile)}, with the file's cubin compiled ahead (by another worker, for this architecture)
     * when there is one: every other check still runs.
     */
    Passed run(KernelFile file, Optional<Compilation> compiledAhead) {
        List<ResolvedPlan> plans = beforeCompiling(file, suite, task, sms, arch);
        Compilation compilation;
        try {
            compilation = compiledAhead.filter(c -> c.arch().equals(arch))
                    .orElseGet(() -> nvrtc.compile(file.name(), file.source(), Prelude.headers(), arch,
                            file.macros(task.dtype())));
        } catch (CompileException e) {
            throw new Rejection(Verdict.COMPILE_ERROR, e.getMessage());
        }
        for (String kernel : file.kernelNames()) {
            if (!compilation.definesKernel(kernel)) {
                throw new Rejection(Verdict.MISSING_KERNEL, "the plan launches '" + kernel
                        + "' but the file defines no extern \"C\" __global__ kernel of that name");
            }
        }
        return new Passed(file, compilation, plans);
    }

    /**
     * The dtype, x's and y's parameter types, source rules, then a plan for every shape of the suite, each launch
     * within what the target allows (shared memory per block, clusters): the plans, in the suite's order.
     */
    private static List<ResolvedPlan> beforeCompiling(KernelFile file, Suite suite, Task task, int sms,
                                                      String arch) {
        if (!file.op().id().equals(task.op().id())) {
            throw new Rejection(Verdict.CONTRACT_ERROR, file.name() + " implements " + file.op().id()
                    + " (its header's \"op\"" + (file.source().contains("\"op\"") ? "" : ": none, so softmax")
                    + "), but " + task.op().id() + " is being judged (op in the config, or --op)");
        }
        Precision dtype = task.dtype();
        if (!file.implementsDtype(dtype)) {
            throw new Rejection(Verdict.CONTRACT_ERROR, file.name() + " implements dtype "
                    + file.dtypes().stream().map(Precision::id).collect(Collectors.joining(", "))
                    + " (its header's \"dtype\"" + (file.source().contains("\"dtype\"") ? "" : ": none, so fp32")
                    + "), but " + dtype.id() + " is being judged (dtype in the config, or --dtype)");
        }
        ParameterTypes.violation(file, dtype).ifPresent(why -> {
            throw new Rejection(Verdict.CONTRACT_ERROR, file.name() + ": " + why);
        });
        Optional<TargetLimits> limits = TargetLimits.of(arch);
        SourcePolicy.violation(file.source()).ifPresent(why -> {
            throw new Rejection(Verdict.SOURCE_REJECTED, file.name() + ": " + why);
        });
        List<ResolvedPlan> plans = new ArrayList<>();
        for (Shape shape : suite.shapes()) {
            plans.add(plan(file, shape, sms, arch, limits));
        }
        return plans;
    }

    /** The file's plan for a shape outside the suite (one drawn for this evaluation), as the suite's are checked. */
    ResolvedPlan plan(KernelFile file, Shape shape) {
        return plan(file, shape, sms);
    }

    /**
     * Which plan (from 0) the file takes for a shape, or -1 where none covers it or its launch is past the target's
     * limits: what a search over shapes asks of each candidate.
     */
    int planIndex(KernelFile file, Shape shape) {
        try {
            return plan(file, shape).planIndex();
        } catch (Rejection r) {
            return -1;
        }
    }

    /** As {@link #plan(KernelFile, Shape)}, its expressions resolved for a device of {@code count} multiprocessors. */
    ResolvedPlan plan(KernelFile file, Shape shape, int count) {
        return plan(file, shape, count, arch, TargetLimits.of(arch));
    }

    private static ResolvedPlan plan(KernelFile file, Shape shape, int sms, String arch,
                                     Optional<TargetLimits> limits) {
        ResolvedPlan plan;
        try {
            plan = PlanResolver.resolve(file, shape, sms);
        } catch (PlanException e) {
            throw new Rejection(Verdict.PLAN_ERROR, e.getMessage());
        }
        for (ResolvedPlan.Launch launch : plan.launches()) {
            limits.flatMap(l -> l.violation(launch, 0, arch)).ifPresent(why -> {
                throw new Rejection(Verdict.RESOURCES_EXCEEDED, file.name() + ": " + shape + ": " + why);
            });
        }
        return plan;
    }

    /**
     * The checks that need no compiler (source rules, a plan for every shape), for {@code kevo check} on a machine
     * without NVRTC: why the file fails them, or empty.
     */
    public static Optional<CandidateResult> rejectedBeforeCompiling(KernelFile file, Suite suite, Task task,
                                                                    int sms, String arch) {
        try {
            beforeCompiling(file, suite, task, sms, arch);
            return Optional.empty();
        } catch (Rejection r) {
            return Optional.of(CandidateResult.rejected(file.name(), file.path() == null ? null : file.path().toString(),
                    file.description(), r.verdict(), r.getMessage(), 0));
        }
    }

    /**
     * Preflight as a result record: PASS with the compile time and log, or the rejection, and each kernel's registers
     * and local memory: from the driver where a GPU of the target architecture loads the cubin, else as the cubin
     * records them ({@link CubinResources}).
     */
    public CandidateResult check(KernelFile file, long inputSeed, Optional<Gpu> gpu) {
        return checked(file, inputSeed, gpu).result();
    }

    /** A preflight's result, and the compilation when it passed (a check-only worker hands it to a GPU worker). */
    public record Checked(CandidateResult result, Optional<Compilation> compilation) {
    }

    public Checked checked(KernelFile file, long inputSeed, Optional<Gpu> gpu) {
        String path = file.path() == null ? null : file.path().toString();
        try {
            Passed passed = run(file);
            List<KernelResources> resources = gpu.filter(g -> g.info().arch().equals(arch))
                    .map(g -> resources(g, passed))
                    .or(() -> CubinResources.of(passed.compilation(), passed.file().kernelNames())).orElse(null);
            CandidateResult result = CandidateResult.builder(file.name(), Verdict.PASS, inputSeed).path(path)
                    .description(file.description())
                    .compiled(passed.compilation().time().toNanos() / 1e6, blankToNull(passed.compilation().log()),
                            resources)
                    .build();
            return new Checked(result, Optional.of(passed.compilation()));
        } catch (Rejection r) {
            return new Checked(CandidateResult.rejected(file.name(), path, file.description(), r.verdict(),
                    r.getMessage(), inputSeed), Optional.empty());
        }
    }

    static List<KernelResources> resources(Gpu gpu, Passed passed) {
        try (Module module = gpu.load(passed.compilation())) {
            return passed.file().kernelNames().stream().map(module::kernel)
                    .map(Kernel::resources)
                    .toList();
        }
    }

    static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }
}
