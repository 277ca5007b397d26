package dev.kevo.task;

import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.List;

/** Chooses a kernel file's plan for a shape and evaluates its expressions, with bounds a launch must respect. */
public final class PlanResolver {

    /** Blocks of a (1-D) grid: what the driver takes in a grid's x dimension. */
    public static final long MAX_GRID = Integer.MAX_VALUE;
    /** Threads of a (1-D) block: every CUDA device's limit. */
    public static final long MAX_BLOCK = 1024;
    /**
     * The largest thread-block cluster any device allows (Hopper, with the non-portable size opted in); past the
     * portable 8 the kernel is opted in at launch and the device decides whether it fits.
     */
    public static final int MAX_CLUSTER = 16;
    /** A plan asking for more scratch memory than this is treated as a mistake, not a request. */
    public static final long MAX_WORKSPACE = 1L << 34;

    private PlanResolver() {
    }

    public static ResolvedPlan resolve(KernelFile file, Shape shape, int sms) {
        Expr.Env env = Expr.Env.of(shape, sms).withKnobs(file.knobs().numbers());
        List<KernelFile.Plan> plans = file.plans();
        for (int p = 0; p < plans.size(); p++) {
            KernelFile.Plan plan = plans.get(p);
            String where = file.name() + ": plan " + (p + 1);
            if (evalCondition(plan.when(), env, where + " 'when'")) {
                return resolvePlan(file, plan, p, env, where);
            }
        }
        throw new PlanException(file.name() + ": no plan covers shape " + shape + " (sms=" + sms + ")");
    }

    private static ResolvedPlan resolvePlan(KernelFile file, KernelFile.Plan plan, int index, Expr.Env env,
                                            String where) {
        long workspace = bounded(file.workspace(), env, file.name() + ": 'workspace'", 0, MAX_WORKSPACE);
        List<ResolvedPlan.Launch> launches = new ArrayList<>();
        for (int l = 0; l < plan.launches().size(); l++) {
            KernelFile.Launch launch = plan.launches().get(l);
            String at = where + " launch " + (l + 1) + " (" + launch.kernel() + ")";
            int grid = (int) bounded(launch.grid(), env, at + " 'grid'", 1, MAX_GRID);
            int block = (int) bounded(launch.block(), env, at + " 'block'", 1, MAX_BLOCK);
            int smem = (int) bounded(launch.smem(), env, at + " 'smem'", 0, Integer.MAX_VALUE);
            int cluster = (int) bounded(launch.cluster(), env, at + " 'cluster'", 1, MAX_CLUSTER);
            if (grid % cluster != 0) {
                throw new PlanException(at + ": grid " + grid + " is not a multiple of cluster " + cluster + " at "
                        + env + " (a cluster is that many consecutive blocks)");
            }
            if (cluster > 1 && launch.cooperative()) {
                throw new PlanException(at + ": a launch is cooperative or clustered, not both (cluster " + cluster
                        + " at " + env + ")");
            }
            List<Object> args = new ArrayList<>();
            for (int a = 0; a < launch.args().size(); a++) {
                switch (launch.args().get(a)) {
                    case KernelFile.Arg.Buffer buffer -> args.add(buffer);
                    case KernelFile.Arg.Int value -> args.add((int) bounded(value.value(), env,
                            at + " arg " + (a + 1), Integer.MIN_VALUE, Integer.MAX_VALUE));
                }
            }
            launches.add(new ResolvedPlan.Launch(launch.kernel(), grid, block, smem, launch.cooperative(), cluster,
                    args));
        }
        return new ResolvedPlan(index, workspace, launches);
    }

    private static boolean evalCondition(Expr expr, Expr.Env env, String where) {
        try {
            return expr.evalBoolean(env);
        } catch (IllegalArgumentException e) {
            throw new PlanException(where + ": " + e.getMessage());
        }
    }

    private static long bounded(Expr expr, Expr.Env env, String where, long min, long max) {
        long value;
        try {
            value = expr.evalLong(env);
        } catch (IllegalArgumentException e) {
            throw new PlanException(where + ": " + e.getMessage());
        }
        if (value < min || value > max) {
            throw new PlanException(where + ": '" + expr.text() + "' = " + value + " at " + env
                    + ", outside [" + min + ", " + max + "]");
        }
        return value;
    }
}
