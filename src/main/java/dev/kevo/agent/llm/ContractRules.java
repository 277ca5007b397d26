package dev.kevo.agent.llm;

import com.ezylang.evalex.functions.FunctionIfc;
import com.ezylang.evalex.functions.FunctionParameterDefinition;
import dev.kevo.agent.TaskContext;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.BeyondSuite;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.MaskKind;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.Precision;
import dev.kevo.data.ShapeRegime;
import dev.kevo.data.Tolerance;
import dev.kevo.task.ContractParser;
import dev.kevo.task.Expr;
import dev.kevo.task.KernelFile;
import dev.kevo.task.KnobParser;
import dev.kevo.task.Knobs;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.SourcePolicy;
import dev.kevo.task.TargetLimits;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The rules a kernel file is judged by, written for a model from the constants and checks that enforce them, so that
 * the prompt cannot state a limit the checker does not hold (or miss one it does): a model once lost a sixth of its
 * answers to a knob limit the prompt never stated. Each method is one placeholder of {@code system.md}, placed where
 * the model needs the rule; the template itself states none.
 *
 * @param task the operator and dtypes judged
 * @param device the GPU that judges, or null when unknown (then its limits are named, not numbered)
 * @param settings the evaluation settings that judge
 */
record ContractRules(Task task, DeviceInfo device, EvalSettings settings) {

    static ContractRules of(TaskContext context) {
        return context == null ? new ContractRules(Evidence.taskOf(null), null, EvalSettings.defaults())
                : new ContractRules(context.task(), context.device(), context.settings());
    }

    /** {@code {{plan_rules}}}: the header's keys, each launch's bounds, cooperative and clustered launches. */
    String plans() {
        List<String> rules = new ArrayList<>();
        rules.add("Keys: a header's " + codes(ContractParser.TOP_KEYS) + "; a plan's " + codes(ContractParser.PLAN_KEYS)
                + "; a launch's " + codes(ContractParser.LAUNCH_KEYS) + ". Any other key is an error.");
        rules.add("`plans` are tried in order; the first whose `when` holds for the shape is used (no `when`: always). A "
                + "shape no plan covers fails, so the plans must cover every shape, whatever its `rows` and `cols`.");
        rules.add("`launches` run in order on one stream; each sees the previous one's writes. `kernel` names an "
                + "`extern \"C\" __global__` function of the file.");
        rules.add("For each shape `grid` must come to 1 to " + PlanResolver.MAX_GRID + " blocks and `block` to 1 to "
                + PlanResolver.MAX_BLOCK + " threads (both 1-D); `smem` is the dynamic shared memory in bytes (default "
                + "0); `workspace` is 0 to " + PlanResolver.MAX_WORKSPACE + " bytes of scratch memory passed as `"
                + KernelFile.WORKSPACE + "` (default 0). Each is an integer expression (or a JSON integer).");
        rules.add("`args`, in the kernel's parameter order: " + tensors() + scalars() + ", `" + KernelFile.WORKSPACE
                + "` (the workspace, any pointer type), or an integer expression such as `rows` or `cols`, passed as "
                + "a 32-bit `int`. kevo defines the element types (below).");
        rules.add("`\"cooperative\": true` launches with `cuLaunchCooperativeKernel`: every block is resident at once, "
                + "so blocks may wait for each other at a grid barrier. Before it runs, kevo asks the driver's occupancy "
                + "calculator (`cuOccupancyMaxActiveBlocksPerMultiprocessor`) how many blocks of the launch's `block` "
                + "threads and `smem` bytes, with the kernel's registers and static shared memory, fit on one SM; a "
                + "grid larger than that times the SM count (`sms`) is resources-exceeded, never a hang. The barrier's "
                + "counter is a `__device__` variable (the workspace is undefined at every launch), as in \"Known to "
                + "work\".");
        rules.add("`\"cluster\": N` (an expression, default 1) launches thread-block clusters of N consecutive blocks "
                + "through `cuLaunchKernelEx`: N from 1 to " + PlanResolver.MAX_CLUSTER + ", a power of two or not, the "
                + "grid a multiple of N, not with `cooperative`. " + clusterSupport() + "Past " + Gpu.PORTABLE_CLUSTER
                + " blocks (the portable size) kevo opts the kernel in to a non-portable size and the device decides: "
                + "where the driver (`cuOccupancyMaxActiveClusters`) fits no cluster of the launch's `block` and "
                + "shared memory, it is resources-exceeded. A cluster's blocks are resident together and read each "
                + "other's shared memory with `kevo.h`'s `kevo_cluster_*` helpers (shown below), so a long row can be "
                + "held on chip across a cluster and its (max, sum) exchanged there. Every thread of every block of a "
                + "cluster calls the cluster barrier; a block arrives once done reading its peers and waits before it "
                + "exits. To exchange one value a block (a row's partial statistic), `KevoClusterExchange` pushes it "
                + "into the peers' shared memory and skips the barrier's release, which sm_90 runs as a GPU-wide "
                + "memory fence.");
        rules.add(expressions(task.op().planVariables()));
        return bullets(rules);
    }

    /** {@code {{knob_rules}}}: how many knobs, their names, values and rule. */
    String knobs() {
        List<String> rules = new ArrayList<>();
        rules.add("At most " + KnobParser.MAX_KNOBS + " knobs, each named by an upper-case C identifier (`"
                + Expr.KNOB_NAME.pattern() + "`) that does not start with `" + KnobParser.RESERVED_PREFIX
                + "`, is none of `kevo.h`'s macros (" + plain(KnobParser.PRELUDE_MACROS) + ") and none of the "
                + "expression names in capitals (" + plain(KnobParser.EXPRESSION_NAMES) + ").");
        rules.add("A knob's keys: `values` (a list) or `range` (`[low, high]` or `[low, high, step]`, the step "
                + "positive), `value` (the current one, among them) and, optionally, `about`. At most "
                + KnobParser.MAX_VALUES + " values a knob, all 32-bit integers or all C identifiers (a choice of "
                + "names). A choice `EXP` with value `EXP2` also defines `EXP_EXP2` as 1, for `#if defined(...)`.");
        rules.add("Plan expressions may use integer knobs, not choices. `knob_rule` (optional) is a condition over "
                + "integer knobs only (not `rows`, `cols`, `sms`) that must hold for the current values; the tuner "
                + "tries only combinations it allows: list only values that compile and run correctly, and rule out "
                + "combinations that do not (`BLOCK * PER_THREAD <= 8192`).");
        rules.add("Do not `#define` a knob in the source (a fallback inside `#ifndef NAME` is fine).");
        rules.add("Every allowed combination must pass every check on every shape: the tuner will try them.");
        return bullets(rules);
    }

    /** {@code {{source_rules}}}: how the file is compiled, what {@code "dtype"} means, what the source may not do. */
    String source() {
        Precision dtype = task.dtype();
        // The macros a file is compiled with, asked of the code that defines them (a file without knobs: the dtype's).
        Map<String, String> macros = new KernelFile("", null, "", "", Expr.constant(0), List.of(), Knobs.NONE,
                List.of(dtype), task.op()).macros(dtype);
        String defines = macros.entrySet().stream().map(e -> "-D" + e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        String arch = device == null ? "sm_XX" : device.arch();
        List<String> rules = new ArrayList<>();
        rules.add("kevo compiles the file with NVRTC and these options only: `" + Nvrtc.STANDARD
                + " --gpu-architecture=" + arch + "` (the device's own), `" + defines + "` (the element types of "
                + task.op().tensors().stream().map(Tensor::name).collect(Collectors.joining(" and ")) + " in the "
                + "dtype judged) and `-DNAME=VALUE` for each knob.");
        rules.add("`\"dtype\"` in the header lists the dtypes the file implements: one (`\"bf16\"`) or a list "
                + "(`[\"fp32\", \"bf16\"]`) of " + plain(Precision.SUPPORTED.stream().map(Precision::id).toList())
                + "; without it, fp32 alone. The dtype judged (" + dtype.id() + ") must be among them, and each "
                + "kernel's " + task.op().tensors().stream().map(t -> "`" + t.name() + "`")
                .collect(Collectors.joining(" and ")) + " parameters must have its element types (as above).");
        List<String> forbidden = SourcePolicy.rules().stream().map(why -> why.replace("{}",
                codes(SourcePolicy.COMPILER_IDENTITY_MACROS) + ", a trailing * meaning any name that starts so"))
                .toList();
        rules.add("A kernel file is at most " + ContractParser.MAX_SOURCE_BYTES + " bytes. It is rejected "
                + "(source-rejected) when, outside comments, it\n" + forbidden.stream().map(r -> "  - " + r)
                .collect(Collectors.joining("\n")));
        return bullets(rules);
    }

    /** {@code {{judging_rules}}}: what a run must show, the shapes and resources it is held to, how it is timed. */
    String judging() {
        Tolerance tolerance = task.tolerance(settings);
        MeasurementMethod timing = settings.measurement();
        List<String> rules = new ArrayList<>();
        // An infinity is some operators' right answer (log_softmax's -inf for a masked entry): the harness holds an
        // infinite reference exactly and a finite one to finite answers (eval/harness.cu).
        rules.add("Before every checked launch y is filled with a NaN poison and the workspace with NaN: every `y` "
                + "element must be written, none may be NaN, an infinity is right only where ref is that infinity, "
                + "and what is read from the workspace must be written first. Guard zones surround `x`, `y` and the workspace: writing outside them is rejected. "
                + "`x` must not change.");
        // the harness's comparison (eval/harness.cu, CheckCounts): the tolerance, plus what rounding to y's type costs
        rules.add("Per element |y - ref| <= " + number(tolerance.absolute()) + " + " + number(tolerance.relative())
                + " |ref| (plus one unit in the last place of y's type), and relative L2 error at most "
                + number(tolerance.relativeL2()) + " (plus what rounding the reference to y's type costs), on every "
                + "input case; ref is the float64 reference.");
        rules.add(shapes());
        rules.add(resources());
        rules.add("Timing, once every shape passes: rounds in which the baseline, the kernel and a plain copy each "
                + "run once, each launch timed by CUDA events of its own; before every timed launch " + (timing.flushL2()
                ? "L2 is flushed" : "L2 is not flushed") + ", the next of " + timing.inputSets() + " input sets is "
                + "used, y and the workspace are poisoned, and one element per row of x is raised to be the row's "
                + "maximum, at a column drawn anew. A time is the median of the timed launches.");
        rules.add("Timed launches are checked at random, and one more launch after timing on fresh inputs: every "
                + "launch must compute its whole output from its own `x`; no caching or skipping across launches.");
        rules.add("A time faster than a plain copy of the same bytes by far is rejected (faster-than-memory): no "
                + "correct kernel is.");
        rules.add("Compile, check and timing phases have wall-time limits, and each launch a deadline scaled from the "
                + "baseline's time on the shape; a kernel that hangs is killed.");
        return bullets(rules);
    }

    /**
     * The shapes checked beyond the suite, each kind as the condition that picks it out, and what a champion's
     * confirmation adds (held-out shapes, the plans at other multiprocessor counts, shapes past 2^31 elements).
     */
    private String shapes() {
        BeyondSuite beyond = settings.beyondSuite();
        List<ShapeRegime> fresh = beyond.fresh();
        StringBuilder out = new StringBuilder("Every shape must be covered and correct.");
        if (!fresh.isEmpty()) {
            out.append(" Besides the suite's shapes, every evaluation checks shapes drawn afresh for it: ")
                    .append(kinds(fresh)).append('.');
        }
        List<String> champion = new ArrayList<>();
        if (beyond.heldOut() > 0) {
            List<ShapeRegime> only = beyond.heldOutRegimes().stream().distinct().filter(r -> !fresh.contains(r))
                    .toList();
            champion.add("on " + beyond.heldOut() + " held-out shapes drawn the same way" + (only.isEmpty() ? ""
                    : ", also of kinds " + kinds(only) + " with more rows than the suite's"));
        }
        if (!beyond.smCounts().isEmpty()) {
            champion.add("with every plan resolved again for " + beyond.smCounts().stream().map(String::valueOf)
                    .collect(Collectors.joining(", ")) + " multiprocessors (`sms`; only the launch changes, on the "
                    + "same GPU; a plan that cannot launch at a count there, such as a cooperative grid larger than this "
                    + "GPU holds at once, is not judged at that count, and an export will not run it on a device of "
                    + "that count)");
        }
        champion.add("at " + beyond.atScale() + ", past 2^31 elements, and per plan at such a shape with `cols % 4 == 0` "
                + "and one with odd `cols`");
        out.append(" A champion is also checked ").append(String.join("; ", champion)).append(": plans must be right "
                + "for any `sms`, and offsets past 2^31 elements need 64-bit arithmetic.");
        return out.toString();
    }

    private static String kinds(List<ShapeRegime> regimes) {
        return regimes.stream().map(r -> r.id() + " (`" + regimeCondition(r) + "`)").collect(Collectors.joining(", "));
    }

    /** Which shapes a draw of {@code regime} gives, as a condition over rows and cols ({@link ShapeRegime#holds}). */
    static String regimeCondition(ShapeRegime regime) {
        return switch (regime) {
            case NARROW -> "cols < 128";
            case UNALIGNED -> "cols % 4 != 0";
            case ONE_ROW -> "rows == 1";
            case LARGE_ODD -> "rows % 2 == 1 && cols % 2 == 1";
            case MANY_ROWS -> "rows > 1";
            case LM_HEAD -> "rows % 2 == 0 && cols % 4 == 0";
        };
    }

    /** Shared memory and threads per block: the device's own limits where it is known, and the target's table. */
    private String resources() {
        Optional<TargetLimits> target = Optional.ofNullable(device).flatMap(d -> TargetLimits.of(d.arch()));
        String shared;
        if (device == null) {
            shared = "at most the device's opt-in limit";
        } else {
            // both are held: the device's own limit before a launch, the target's table before compiling
            int limit = target.map(t -> Math.min(t.maxSharedPerBlock(), device.maxSharedPerBlockOptin()))
                    .orElse(device.maxSharedPerBlockOptin());
            shared = "at most " + limit + " bytes on this device";
        }
        return "Shared memory per block, static and `smem` together, " + shared + "; a block's threads are also "
                + "bounded by the kernel's registers (the driver's maximum for the compiled kernel): "
                + "`__launch_bounds__(N)` makes the compiler fit N. Past either: resources-exceeded.";
    }

    private String clusterSupport() {
        if (device == null) {
            return "";
        }
        return TargetLimits.of(device.arch()).map(t -> t.clusters() ? "This device (" + device.arch()
                + ") has clusters. " : "This device (" + device.arch() + ") has no clusters: a cluster of more than "
                + "one block is resources-exceeded. ").orElse("");
    }

    /** The expression grammar, from the operator and function tables of {@link Expr}. */
    private static String expressions(Set<String> planVariables) {
        String functions = Expr.FUNCTIONS.entrySet().stream().map(f -> "`" + f.getKey() + "(" + parameters(f.getValue())
                + ")`").collect(Collectors.joining(", "));
        String layout = planVariables.isEmpty() ? "" : ", the attention layout's " + codes(planVariables)
                + " (`mask_kind`: " + java.util.Arrays.stream(MaskKind.values()).map(k -> k.ordinal() + " " + k.id())
                .collect(Collectors.joining(", ")) + "; rows are batch x heads x queries, cols the keys)";
        return "Expressions: integer literals, `rows`, `cols`, `sms` (the multiprocessor count)" + layout
                + " and the file's integer knobs, with " + codes(Expr.ARITHMETIC) + " (`/` and `%` truncate toward zero, as in C; "
                + "`+` and `-` also as signs), parentheses and " + functions + " (`cdiv` divides rounding up). "
                + "An integer expression gives a 64-bit integer; a fraction or a division by zero is an error. A "
                + "condition (`when`, `knob_rule`) compares integers with " + codes(Expr.COMPARISONS) + " and "
                + "combines comparisons with " + codes(Expr.LOGIC) + ", `true` and `false`; nothing else may use "
                + "them: arithmetic on a condition is an error, and comparisons do not chain (`a < b < c`). An "
                + "expression is at most " + Expr.MAX_LENGTH + " characters and at most " + Expr.MAX_DEPTH
                + " levels deep (each operator or call is a level: `a + b + c` is three).";
    }

    /** {@code a, b} for two parameters, {@code a, ...} for one and any number more. */
    private static String parameters(FunctionIfc function) {
        List<FunctionParameterDefinition> params = function.getFunctionParameterDefinitions();
        return IntStream.range(0, params.size()).mapToObj(i -> params.get(i).isVarArg() ? "..."
                : String.valueOf((char) ('a' + i))).collect(Collectors.joining(", "));
    }

    /**
     * The operator's tensors as arguments, each with its parameter type: the element macro kevo defines for it
     * ({@link KernelFile#macros}), which {@code ParameterTypes} accepts in every dtype.
     */
    private String tensors() {
        return task.op().tensors().stream().map(t -> "`" + t.name() + "` (`" + (t.role() == Tensor.Role.INPUT
                ? "const " : "") + t.element().declaredAs() + "*`"
                + (t.extent() == Tensor.Extent.ROWS_COLS ? "" : ", " + extent(t.extent())) + ")")
                .collect(Collectors.joining(", "));
    }

    /** What a tensor that is not one element per (row, column) holds, and when it is a null pointer. */
    private static String extent(Tensor.Extent extent) {
        return switch (extent) {
            case ROWS_COLS -> "";
            case BATCH -> "one per batch entry, read under the padding mask kind, else a null pointer";
            case BATCH_QUERIES_KEYS -> "batch x queries x keys, the same for every head, read under the additive "
                    + "mask kind, else a null pointer";
            case ROWS -> "one per row";
            case ONE -> "one element";
        };
    }

    /** The operator's runtime float arguments, passed by name: {@code , `scale` (`float`, ...)}. */
    private String scalars() {
        return task.op().scalars().stream().map(s -> ", `" + s.name() + "` (`float`, drawn anew for every input "
                + "case)").collect(Collectors.joining());
    }

    /** A list in its own order, a set sorted: the prompt reads the same from run to run. */
    private static List<String> ordered(Collection<String> names) {
        return names instanceof List<String> list ? list : names.stream().sorted().toList();
    }

    private static String codes(Collection<String> names) {
        return ordered(names).stream().map(n -> "`" + n + "`").collect(Collectors.joining(", "));
    }

    private static String plain(Collection<String> names) {
        return String.join(", ", ordered(names));
    }

    /** A tolerance as it is written in config/eval.yaml: {@code 1e-6}, {@code 1e-4}. */
    private static String number(double value) {
        return new DecimalFormat("0.###E0", DecimalFormatSymbols.getInstance(Locale.ROOT)).format(value)
                .replace("E", "e");
    }

    private static String bullets(List<String> rules) {
        return rules.stream().map(r -> "- " + r).collect(Collectors.joining("\n"));
    }
}
