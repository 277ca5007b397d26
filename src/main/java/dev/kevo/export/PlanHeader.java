package dev.kevo.export;

import dev.kevo.cuda.Prelude;
import dev.kevo.data.MaskKind;
import dev.kevo.task.Expr;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import java.util.Arrays;
import java.util.List;

/**
 * Writes {@code kevo_<op>_plan.h}: a kernel file's launch plan as a pure host C++ function that chooses the plan for
 * a shape and evaluates its launches, in the order and with the bounds of kevo's PlanResolver. It needs no CUDA, so it
 * can be compiled and compared with kevo on any machine. Its names are the file's operator's ({@link OperatorApi}).
 */
final class PlanHeader {

    /** PlanResolver's bounds: a workspace over 16 GiB is a mistake, grids fit an int, blocks 1024 threads. */
    private static final String WORKSPACE_MAX = "(INT64_C(1) << 34)";
    private static final String INT_MAX = "INT64_C(2147483647)";
    private static final String INT_MIN = "(-INT64_C(2147483647) - 1)";

    private PlanHeader() {
    }

    /**
     * The header: {@code kevo_<op>_resolve}, kevo's choice of plan, and {@code kevo_<op>_judged_for}, which refuses a
     * plan outside {@code envelope} (what kevo judged it on).
     */
    static String render(KernelFile file, String banner, PlanEnvelope envelope) {
        OperatorApi api = OperatorApi.of(file.op());
        List<String> kernels = file.kernelNames();
        int maxLaunches = file.plans().stream().mapToInt(p -> p.launches().size()).max().orElse(1);
        int maxArgs = Math.max(1, file.plans().stream().flatMap(p -> p.launches().stream())
                .mapToInt(l -> l.args().size()).max().orElse(1));
        StringBuilder out = new StringBuilder();
        out.append(banner);
        out.append("""
                // The launch plan of the /*@kevo header, as kevo evaluates it: plans are tried in order and the first
                // whose 'when' holds is used; then the workspace, and for each launch its grid, block, smem, cluster and
                // integer arguments, each checked against kevo's bounds. Pure host C++ (no CUDA needed).
                #pragma once
                #include <stdbool.h>
                """);
        out.append(Prelude.resource(PlanHeader.class, "plan-runtime.h")).append('\n');
        List<String> slots = api.slots();
        out.append("""
                /* Where a launch's arguments come from (arg_kind): a slot, the operator's tensors in the C API's order,
                   its scalars, then the workspace; or PREFIX_ARG_INT, an int the plan computes (arg_value). */
                """.replace("PREFIX", api.macro()));
        out.append("#define ").append(api.macro()).append("_ARG_INT (-1)\n");
        out.append("#define ").append(api.macro()).append("_SLOTS ").append(slots.size()).append('\n');
        out.append("static const char* const ").append(api.prefix()).append("_slot_names[").append(api.macro())
                .append("_SLOTS] = {").append(String.join(", ", slots.stream().map(CText::string).toList()))
                .append("};\n");
        out.append("/* The mask kinds by their number, the plan variable mask_kind (MaskKind's order). */\n");
        out.append("#define ").append(api.macro()).append("_MASK_KINDS ").append(MaskKind.values().length).append('\n');
        out.append("static const char* const ").append(api.prefix()).append("_mask_names[").append(api.macro())
                .append("_MASK_KINDS] = {").append(String.join(", ", Arrays.stream(MaskKind.values())
                        .map(k -> CText.string(k.id())).toList())).append("};\n");
        out.append("#define ").append(api.macro()).append("_KERNELS ").append(kernels.size()).append('\n');
        out.append("#define ").append(api.macro()).append("_MAX_LAUNCHES ").append(maxLaunches).append('\n');
        out.append("#define ").append(api.macro()).append("_MAX_ARGS ").append(maxArgs).append('\n');
        out.append("static const char* const ").append(api.prefix()).append("_kernel_names[").append(api.macro())
                .append("_KERNELS] = {");
        for (int k = 0; k < kernels.size(); k++) {
            out.append(k == 0 ? "" : ", ").append(CText.string(kernels.get(k)));
        }
        out.append("};\n\n");
        out.append(named(api, """
                typedef struct kevo_op_launch {
                    int kernel;  /* index into kevo_op_kernel_names */
                    int grid, block, smem;
                    bool cooperative;
                    int cluster;  /* blocks per thread-block cluster; 1: no cluster */
                    int nargs;
                    int arg_kind[KEVO_OP_MAX_ARGS];   /* a slot, or KEVO_OP_ARG_INT */
                    int arg_value[KEVO_OP_MAX_ARGS];  /* for KEVO_OP_ARG_INT */
                } kevo_op_launch;

                typedef struct kevo_op_plan {
                    int plan;            /* which of the header's plans, 0-based */
                    int64_t workspace;   /* bytes */
                    int nlaunches;
                    kevo_op_launch launch[KEVO_OP_MAX_LAUNCHES];
                    char error[512];     /* why, when kevo_op_resolve returns false */
                } kevo_op_plan;

                """));
        ExpressionTable table = new ExpressionTable(file.knobs().numbers(), api.prefix());
        StringBuilder body = new StringBuilder();
        List<KernelFile.Plan> plans = file.plans();
        for (int p = 0; p < plans.size(); p++) {
            KernelFile.Plan plan = plans.get(p);
            String where = "plan " + (p + 1);
            String at = name(file) + ": plan " + (p + 1);
            String when = table.condition(plan.when(), at + " 'when'");
            body.append("    // ").append(where).append(": when ").append(CText.comment(plan.when().text())).append('\n');
            body.append("    if (!kevo_condition(&c, ").append(when).append("(&c), &when, ")
                    .append(CText.string(name(file) + ": " + where + " 'when'")).append(", ")
                    .append(CText.string(plan.when().text())).append(", p->error, sizeof p->error)) return false;\n");
            body.append("    if (when) {\n");
            body.append("        p->plan = ").append(p).append(";\n");
            body.append("        if (!kevo_bounded(&c, ").append(table.integer(file.workspace(), name(file) + ": workspace"))
                    .append("(&c), 0, ").append(WORKSPACE_MAX).append(", &p->workspace, ")
                    .append(CText.string(name(file) + ": 'workspace'")).append(", ")
                    .append(CText.string(file.workspace().text())).append(", p->error, sizeof p->error)) return false;\n");
            for (int l = 0; l < plan.launches().size(); l++) {
                KernelFile.Launch launch = plan.launches().get(l);
                String lat = at + " launch " + (l + 1);
                String what = name(file) + ": " + where + " launch " + (l + 1) + " (" + launch.kernel() + ")";
                String slot = "p->launch[" + l + "]";
                body.append("        ").append(slot).append(".kernel = ").append(kernels.indexOf(launch.kernel()))
                        .append(";  // ").append(launch.kernel()).append('\n');
                bounded(body, table, launch.grid(), lat + " 'grid'", "1", INT_MAX, slot + ".grid", what + " 'grid'");
                bounded(body, table, launch.block(), lat + " 'block'", "1", "INT64_C(1024)", slot + ".block",
                        what + " 'block'");
                bounded(body, table, launch.smem(), lat + " 'smem'", "0", INT_MAX, slot + ".smem", what + " 'smem'");
                bounded(body, table, launch.cluster(), lat + " 'cluster'", "1",
                        "INT64_C(" + PlanResolver.MAX_CLUSTER + ")", slot + ".cluster", what + " 'cluster'");
                body.append("        ").append(slot).append(".cooperative = ").append(launch.cooperative()).append(";\n");
                body.append("        if (!kevo_cluster_rules(&c, ").append(slot).append(".grid, ").append(slot)
                        .append(".cluster, ").append(slot).append(".cooperative, ").append(CText.string(what))
                        .append(", p->error, sizeof p->error)) return false;\n");
                body.append("        ").append(slot).append(".nargs = ").append(launch.args().size()).append(";\n");
                for (int a = 0; a < launch.args().size(); a++) {
                    String arg = slot + ".arg_kind[" + a + "] = ";
                    switch (launch.args().get(a)) {
                        case KernelFile.Arg.Buffer buffer -> body.append("        ").append(arg)
                                .append(api.slot(buffer.name())).append(";  // ").append(buffer.name()).append('\n');
                        case KernelFile.Arg.Int value -> {
                            body.append("        ").append(arg).append(api.macro()).append("_ARG_INT;\n");
                            bounded(body, table, value.value(), lat + " arg " + (a + 1), INT_MIN, INT_MAX,
                                    slot + ".arg_value[" + a + "]", what + " arg " + (a + 1));
                        }
                    }
                }
            }
            body.append("        p->nlaunches = ").append(plan.launches().size()).append(";\n");
            body.append("        return true;\n    }\n");
        }
        out.append(table.functions());
        out.append(named(api, """
                /* Chooses the plan for a shape of rows x cols, laid out as batch x heads x queries rows and masked
                   as mask_kind says (MaskKind's ordinal), on a device with sms multiprocessors, and evaluates its
                   launches. Returns false, with the reason in p->error, where kevo would reject the shape. */
                static inline bool kevo_op_resolve_at(int64_t rows, int64_t cols, int64_t batch, int64_t heads,
                                                      int64_t queries, int64_t mask_kind, int64_t sms, kevo_op_plan* p) {
                    kevo_plan_ctx c = {rows, cols, sms, 0, KNOBS, batch, heads, queries, mask_kind, ""};
                    int64_t v = 0;
                    bool when = false;
                    memset(p, 0, sizeof *p);
                    (void)v;
                """).replace("KNOBS", CText.string(knobText(file))));
        out.append(body);
        out.append(named(api, """
                    /* The shape as kevo writes it (Shape.toString): BxHxQxK for an attention layout, :MASK after it. */
                    char shape[160];
                    int used = batch == 1 && heads == 1
                            ? snprintf(shape, sizeof shape, "%lldx%lld", (long long)rows, (long long)cols)
                            : snprintf(shape, sizeof shape, "%lldx%lldx%lldx%lld", (long long)batch, (long long)heads,
                                       (long long)queries, (long long)cols);
                    if (mask_kind != 0 && used > 0 && (size_t)used < sizeof shape) {
                        snprintf(shape + used, sizeof shape - (size_t)used, ":%s",
                                 mask_kind > 0 && mask_kind < KEVO_OP_MASK_KINDS ? kevo_op_mask_names[mask_kind] : "?");
                    }
                    snprintf(p->error, sizeof p->error, "%s: no plan covers shape %s (sms=%lld)", NAME, shape,
                             (long long)sms);
                    return false;
                }

                /* A plain shape: one batch entry of one head whose queries are its rows, masked by nothing. */
                static inline bool kevo_op_resolve(int64_t rows, int64_t cols, int64_t sms, kevo_op_plan* p) {
                    return kevo_op_resolve_at(rows, cols, 1, 1, rows, 0, sms, p);
                }

                """).replace("NAME", CText.string(name(file))));
        out.append(judged(file, api, envelope));
        return out.toString();
    }

    /** The envelope as a table, and the function that holds a resolved plan to it. */
    private static String judged(KernelFile file, OperatorApi api, PlanEnvelope envelope) {
        int widest = Math.max(1, envelope.plans().stream().mapToInt(e -> e.sms().size()).max().orElse(1));
        StringBuilder out = new StringBuilder();
        out.append("/* Where this package runs each plan: kevo runs a plan only on what it judged it on (kevo-export.json,\n")
                .append("   \"plans\"): every case on one shape, a repeated launch and compute-sanitizer's pass; at most\n")
                .append("   max_elements elements; at the multiprocessor counts listed. */\n");
        out.append("typedef struct ").append(api.prefix()).append("_judged_plan {\n    bool runs;\n")
                .append("    const char* why;  /* when it does not */\n")
                .append("    int64_t max_elements;\n    int nsms;\n    int sms[").append(widest).append("];\n")
                .append("} ").append(api.prefix()).append("_judged_plan;\n\n");
        out.append("static const ").append(api.prefix()).append("_judged_plan ").append(api.prefix())
                .append("_judged[").append(envelope.plans().size()).append("] = {\n");
        for (PlanEnvelope.Entry e : envelope.plans()) {
            out.append("    {").append(e.runs()).append(", ").append(e.why() == null ? "\"\"" : CText.string(e.why()))
                    .append(", INT64_C(").append(e.maxElements()).append("), ").append(e.sms().size()).append(", {")
                    .append(e.sms().isEmpty() ? "0" : String.join(", ", e.sms().stream().map(String::valueOf).toList()))
                    .append("}},  // plan ").append(e.plan()).append('\n');
        }
        out.append("};\n\n");
        out.append(named(api, """
                /* Whether the package runs the plan kevo_op_resolve chose for rows x cols on a device of sms
                   multiprocessors; false, with the reason in p->error, where kevo never judged it so. */
                static inline bool kevo_op_judged_for(kevo_op_plan* p, int64_t rows, int64_t cols, int64_t sms) {
                    const kevo_op_judged_plan* j = &kevo_op_judged[p->plan];
                    if (!j->runs) {
                        snprintf(p->error, sizeof p->error, "%s: shape %lldx%lld takes plan %d, which this package does not run: %s",
                                 NAME, (long long)rows, (long long)cols, p->plan + 1, j->why);
                        return false;
                    }
                    if (rows * cols > j->max_elements) {
                        snprintf(p->error, sizeof p->error, "%s: shape %lldx%lld (%lld elements) takes plan %d, which kevo judged on "
                                 "shapes of at most %lld elements", NAME, (long long)rows, (long long)cols,
                                 (long long)(rows * cols), p->plan + 1, (long long)j->max_elements);
                        return false;
                    }
                    for (int i = 0; i < j->nsms; i++) {
                        if (j->sms[i] == sms) return true;
                    }
                    char counts[128] = "";
                    for (int i = 0; i < j->nsms; i++) {
                        size_t used = strlen(counts);
                        snprintf(counts + used, sizeof counts - used, "%s%d", i == 0 ? "" : ", ", j->sms[i]);
                    }
                    snprintf(p->error, sizeof p->error, "%s: plan %d (shape %lldx%lld) was judged at %s multiprocessors, "
                             "not at this device's %lld; judge it on this GPU (kevo eval --at-scale --sanitize) and export "
                             "there", NAME, p->plan + 1, (long long)rows, (long long)cols, counts, (long long)sms);
                    return false;
                }
                """).replace("NAME", CText.string(name(file))));
        return out.toString();
    }

    /**
     * Code written with the placeholder names {@code kevo_op} and {@code KEVO_OP}, in the operator's: the plan header
     * of every operator is one text.
     */
    private static String named(OperatorApi api, String code) {
        return code.replace("KEVO_OP", api.macro()).replace("kevo_op", api.prefix());
    }

    private static void bounded(StringBuilder body, ExpressionTable table, Expr expr, String at, String lo, String hi,
                                String target, String what) {
        body.append("        if (!kevo_bounded(&c, ").append(table.integer(expr, at)).append("(&c), ").append(lo)
                .append(", ").append(hi).append(", &v, ").append(CText.string(what)).append(", ")
                .append(CText.string(expr.text())).append(", p->error, sizeof p->error)) return false;\n");
        body.append("        ").append(target).append(" = (int)v;\n");
    }

    /** The knobs as kevo's evaluation messages list them after sms (sorted by name), or "" for none. */
    private static String knobText(KernelFile file) {
        StringBuilder out = new StringBuilder();
        new java.util.TreeMap<>(file.knobs().numbers()).forEach((k, v) -> out.append(", ").append(k).append('=')
                .append(v));
        return out.toString();
    }

    private static String name(KernelFile file) {
        return file.name();
    }

    /** One static function per distinct expression text and type, so a repeated expression is written once. */
    private static final class ExpressionTable {
        private final java.util.Map<String, String> names = new java.util.LinkedHashMap<>();
        private final StringBuilder functions = new StringBuilder();
        private final java.util.Map<String, Long> knobs;
        private final String prefix;

        ExpressionTable(java.util.Map<String, Long> knobs, String prefix) {
            this.knobs = knobs;
            this.prefix = prefix;
        }

        String integer(Expr expr, String at) {
            return function(expr, at, "int64_t", CExpression.integer(expr, at, knobs));
        }

        String condition(Expr expr, String at) {
            return function(expr, at, "bool", CExpression.condition(expr, at, knobs));
        }

        private String function(Expr expr, String at, String type, String code) {
            String key = type + " " + expr.text();
            return names.computeIfAbsent(key, k -> {
                String name = prefix + "_e" + names.size();
                functions.append("// ").append(CText.comment(expr.text())).append('\n')
                        .append("static inline ").append(type).append(' ').append(name)
                        .append("(kevo_plan_ctx* c) {\n    return ").append(code).append(";\n}\n\n");
                return name;
            });
        }

        String functions() {
            return functions.toString();
        }
    }

}
