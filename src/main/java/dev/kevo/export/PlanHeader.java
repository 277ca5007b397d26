package dev.kevo.export;

import dev.kevo.cuda.Prelude;
import dev.kevo.task.Expr;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import java.util.List;

/**
 * Writes {@code kevo_softmax_plan.h}: a kernel file's launch plan as a pure host C++ function that chooses the plan
 * for a shape and evaluates its launches, in the order and with the bounds of kevo's PlanResolver. It needs no
 * CUDA, so it can be compiled and compared with kevo on any machine.
 */
final class PlanHeader {

    static final String FILE = "kevo_softmax_plan.h";

    /** PlanResolver's bounds: a workspace over 16 GiB is a mistake, grids fit an int, blocks 1024 threads. */
    private static final String WORKSPACE_MAX = "(INT64_C(1) << 34)";
    private static final String INT_MAX = "INT64_C(2147483647)";
    private static final String INT_MIN = "(-INT64_C(2147483647) - 1)";

    private PlanHeader() {
    }

    /**
     * The header: {@code kevo_softmax_resolve}, kevo's choice of plan, and {@code kevo_softmax_judged_for}, which
     * refuses a plan outside {@code envelope} (what kevo judged it on).
     */
    static String render(KernelFile file, String banner, PlanEnvelope envelope) {
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
        out.append("enum { KEVO_ARG_X = 0, KEVO_ARG_Y = 1, KEVO_ARG_WS = 2, KEVO_ARG_INT = 3 };\n");
        out.append("#define KEVO_SOFTMAX_KERNELS ").append(kernels.size()).append('\n');
        out.append("#define KEVO_SOFTMAX_MAX_LAUNCHES ").append(maxLaunches).append('\n');
        out.append("#define KEVO_SOFTMAX_MAX_ARGS ").append(maxArgs).append('\n');
        out.append("static const char* const kevo_softmax_kernel_names[KEVO_SOFTMAX_KERNELS] = {");
        for (int k = 0; k < kernels.size(); k++) {
            out.append(k == 0 ? "" : ", ").append(CText.string(kernels.get(k)));
        }
        out.append("};\n\n");
        out.append("""
                typedef struct kevo_softmax_launch {
                    int kernel;  /* index into kevo_softmax_kernel_names */
                    int grid, block, smem;
                    bool cooperative;
                    int cluster;  /* blocks per thread-block cluster; 1: no cluster */
                    int nargs;
                    int arg_kind[KEVO_SOFTMAX_MAX_ARGS];   /* KEVO_ARG_* */
                    int arg_value[KEVO_SOFTMAX_MAX_ARGS];  /* for KEVO_ARG_INT */
                } kevo_softmax_launch;

                typedef struct kevo_softmax_plan {
                    int plan;            /* which of the header's plans, 0-based */
                    int64_t workspace;   /* bytes */
                    int nlaunches;
                    kevo_softmax_launch launch[KEVO_SOFTMAX_MAX_LAUNCHES];
                    char error[512];     /* why, when kevo_softmax_resolve returns false */
                } kevo_softmax_plan;

                """);
        ExpressionTable table = new ExpressionTable(file.knobs().numbers());
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
                                .append(argKind(file, buffer)).append(";\n");
                        case KernelFile.Arg.Int value -> {
                            body.append("        ").append(arg).append("KEVO_ARG_INT;\n");
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
        out.append("""
                /* Chooses the plan for rows x cols on a device with sms multiprocessors and evaluates its launches.
                   Returns false, with the reason in p->error, where kevo would reject the shape. */
                static inline bool kevo_softmax_resolve(int64_t rows, int64_t cols, int64_t sms, kevo_softmax_plan* p) {
                    kevo_plan_ctx c = {rows, cols, sms, 0, KNOBS};
                    int64_t v = 0;
                    bool when = false;
                    memset(p, 0, sizeof *p);
                    (void)v;
                """.replace("KNOBS", CText.string(knobText(file))));
        out.append(body);
        out.append("    snprintf(p->error, sizeof p->error, \"%s: no plan covers shape %lldx%lld (sms=%lld)\", ")
                .append(CText.string(name(file))).append(", (long long)rows, (long long)cols, (long long)sms);\n");
        out.append("    return false;\n}\n\n");
        out.append(judged(file, envelope));
        return out.toString();
    }

    /** The envelope as a table, and the function that holds a resolved plan to it. */
    private static String judged(KernelFile file, PlanEnvelope envelope) {
        int widest = Math.max(1, envelope.plans().stream().mapToInt(e -> e.sms().size()).max().orElse(1));
        StringBuilder out = new StringBuilder();
        out.append("/* Where this package runs each plan: kevo runs a plan only on what it judged it on (kevo-export.json,\n")
                .append("   \"plans\"): every case on one shape, a repeated launch and compute-sanitizer's pass; at most\n")
                .append("   max_elements elements; at the multiprocessor counts listed. */\n");
        out.append("typedef struct kevo_softmax_judged_plan {\n    bool runs;\n    const char* why;  /* when it does not */\n")
                .append("    int64_t max_elements;\n    int nsms;\n    int sms[").append(widest).append("];\n")
                .append("} kevo_softmax_judged_plan;\n\n");
        out.append("static const kevo_softmax_judged_plan kevo_softmax_judged[").append(envelope.plans().size())
                .append("] = {\n");
        for (PlanEnvelope.Entry e : envelope.plans()) {
            out.append("    {").append(e.runs()).append(", ").append(e.why() == null ? "\"\"" : CText.string(e.why()))
                    .append(", INT64_C(").append(e.maxElements()).append("), ").append(e.sms().size()).append(", {")
                    .append(e.sms().isEmpty() ? "0" : String.join(", ", e.sms().stream().map(String::valueOf).toList()))
                    .append("}},  // plan ").append(e.plan()).append('\n');
        }
        out.append("};\n\n");
        out.append("""
                /* Whether the package runs the plan kevo_softmax_resolve chose for rows x cols on a device of sms
                   multiprocessors; false, with the reason in p->error, where kevo never judged it so. */
                static inline bool kevo_softmax_judged_for(kevo_softmax_plan* p, int64_t rows, int64_t cols, int64_t sms) {
                    const kevo_softmax_judged_plan* j = &kevo_softmax_judged[p->plan];
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
                """.replace("NAME", CText.string(name(file))));
        return out.toString();
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

        ExpressionTable(java.util.Map<String, Long> knobs) {
            this.knobs = knobs;
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
                String name = "kevo_softmax_e" + names.size();
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

    /**
     * The launcher's kind of a buffer argument: the operator's input is the package's x, its output y, the workspace
     * ws (the row-wise operators kevo exports have one of each).
     */
    private static String argKind(KernelFile file, KernelFile.Arg.Buffer buffer) {
        if (buffer.name().equals(KernelFile.WORKSPACE)) {
            return "KEVO_ARG_WS";
        }
        return buffer.name().equals(file.op().input().name()) ? "KEVO_ARG_X" : "KEVO_ARG_Y";
    }
}
