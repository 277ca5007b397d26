package dev.kevo.agent;

import dev.kevo.agent.KernelRenderer.Bucket;
import dev.kevo.agent.KernelRenderer.Kernel;
import dev.kevo.agent.KernelRenderer.Launch;
import dev.kevo.agent.KernelRenderer.Plan;
import dev.kevo.data.Precision;
import java.util.ArrayList;
import java.util.List;

/**
 * The launch plans of a backward operator's file (softmax_backward, log_softmax_backward: an operator with
 * {@code gradientOf}), rendered from the same genome as the forward's: its short and block regimes' buckets hold y and
 * dy in registers, its cluster regime holds a longer row across a cluster's blocks, and its loop regime takes every
 * longer row still, reading y and dy twice. The kernels are genome-backward.cu's, whose row statistic is one dot
 * product.
 *
 * <p>A thread holds two inputs where the forward's holds one, so each register bucket and each cluster block keeps
 * half the forward's vectors (at least one) and so half its columns: the registers and shared memory the genome's
 * normalization budgets for x then hold y and dy. The forward's split and fused regimes (few long rows) have no
 * backward kernels yet: those rows go to the cluster or the loop.
 */
final class GradientPlans {
    private static final List<String> ARGS = List.of("y", "dy", "dx", "rows", "cols");

    private GradientPlans() {
    }

    /** The plans in {@code dtype} for a genome already normalized, in header order: short, block, cluster, loop. */
    static List<Plan> plans(Genome g, Precision dtype) {
        Genome.ShortRows s = g.shortRows();
        String params = params(dtype, "int rows, int cols");
        List<Plan> plans = new ArrayList<>();
        for (Bucket k : shortBuckets(g, dtype)) {
            int rowsPerBlock = s.threads() / k.group();
            Kernel kernel = new Kernel("grad_short_g" + k.group() + "_n" + k.vectors(), s.threads(), params,
                    "grad_register_rows<ShortCfg, " + s.threads() + ", " + k.group() + ", " + k.vectors()
                            + ">(y, dy, dx, rows, cols)");
            String grid = rowsPerBlock == 1 ? "rows" : "cdiv(rows, " + rowsPerBlock + ")";
            plans.add(new Plan("cols <= " + k.cols(), List.of(new Launch(kernel, grid, ARGS))));
        }
        int shortMax = last(shortBuckets(g, dtype));
        for (Bucket k : blockBuckets(g, dtype)) {
            if (k.cols() > shortMax) {  // narrower buckets are shadowed by the short plans
                Kernel kernel = KernelRenderer.blockKernel("grad", k, g.blockRows(), params,
                        "grad_register_rows<BlockCfg, " + k.group() + ", " + k.group() + ", " + k.vectors()
                                + ">(y, dy, dx, rows, cols)");
                plans.add(new Plan("cols <= " + k.cols(), List.of(new Launch(kernel, "rows", ARGS))));
            }
        }
        if (clusterTakesRows(g, dtype)) {
            plans.add(clusterPlan(g.clusterRows(), dtype));
        }
        Genome.LoopRows loop = g.loopRows();
        Kernel kernel = new Kernel("grad_loop", loop.pass().threads(), params,
                "grad_loop_rows<LoopCfg>(y, dy, dx, rows, cols)");
        String grid = loop.gridCap() == 0 ? "rows" : "min(rows, " + loop.gridCap() + " * sms)";
        plans.add(new Plan("true", List.of(new Launch(kernel, grid, ARGS))));
        return plans;
    }

    /** The kernel parameters y, dy and dx, in the dtype's element types, then {@code rest}. */
    private static String params(Precision dtype, String rest) {
        String x = dtype.x().cudaType();
        return "const " + x + "* __restrict__ y, const " + x + "* __restrict__ dy, " + dtype.y().cudaType()
                + "* __restrict__ dx, " + rest;
    }

    private static List<Bucket> shortBuckets(Genome g, Precision dtype) {
        return halved(KernelRenderer.shortBuckets(g.shortRows(), dtype), Genome.vecElems(g.shortRows().vec(), dtype));
    }

    private static List<Bucket> blockBuckets(Genome g, Precision dtype) {
        return halved(KernelRenderer.blockBuckets(g.blockRows(), dtype), Genome.vecElems(g.blockRows().vec(), dtype));
    }

    /** The columns the last of {@code buckets} holds; 0 for none. */
    private static int last(List<Bucket> buckets) {
        return buckets.isEmpty() ? 0 : buckets.getLast().cols();
    }

    /** The longest row the register plans hold: the short or block regime's last bucket. */
    private static int registerCols(Genome g, Precision dtype) {
        return Math.max(last(shortBuckets(g, dtype)), last(blockBuckets(g, dtype)));
    }

    /** Whether the cluster regime is on and holds longer rows than the register plans: then it has a plan. */
    private static boolean clusterTakesRows(Genome g, Precision dtype) {
        Genome.ClusterRows c = g.clusterRows();
        return c.enabled() && (long) clusterCapacity(c, dtype) * c.maxCluster() > registerCols(g, dtype);
    }

    /** Vectors of y (and as many of dy) a cluster block's thread holds in registers: half the forward's x, at least 1. */
    static int clusterRegVecs(Genome.ClusterRows c) {
        return Math.max(1, c.regVecs() / 2);
    }

    /** Vectors of y (and as many of dy) it holds in shared memory: half the forward's, so the same bytes. */
    static int clusterSmemVecs(Genome.ClusterRows c) {
        return c.smemVecs() / 2;
    }

    /** Columns one cluster block holds in {@code dtype}: its threads' 16-byte vectors of y. */
    static int clusterCapacity(Genome.ClusterRows c, Precision dtype) {
        return c.threads() * Genome.vecElems(4, dtype) * (clusterRegVecs(c) + clusterSmemVecs(c));
    }

    /**
     * Rows past the block buckets up to what a cluster of {@code maxCluster} blocks holds: a row per cluster of
     * cdiv(cols, capacity) blocks, each holding its share of y and dy on chip ({@code grad_cluster_rows}).
     */
    private static Plan clusterPlan(Genome.ClusterRows c, Precision dtype) {
        int n = clusterRegVecs(c);
        int smem = clusterSmemVecs(c);
        int capacity = clusterCapacity(c, dtype);
        Kernel kernel = new Kernel("grad_cluster_t" + c.threads() + "_r" + n + "_s" + smem, c.threads(),
                1024 / c.threads(), params(dtype, "int cols"),
                "grad_cluster_rows<ClusterCfg, " + c.threads() + ", " + n + ", " + smem + ">(y, dy, dx, cols)");
        String blocks = "cdiv(cols, " + capacity + ")";
        String smemBytes = smem > 0 ? Long.toString(2L * c.threads() * smem * 16) : null;
        return new Plan("cols <= " + (long) capacity * c.maxCluster(), List.of(new Launch(kernel, "rows * " + blocks,
                smemBytes, false, c.maxCluster() > 1 ? blocks : null, List.of("y", "dy", "dx", "cols"))));
    }

    /**
     * The forward's buckets with half the vectors (at least one) and the columns they then hold; a bucket that holds
     * no more than the one before it is dropped, so that every plan's condition admits rows no other before it does.
     */
    static List<Bucket> halved(List<Bucket> forward, int perVec) {
        List<Bucket> out = new ArrayList<>();
        int last = 0;
        for (Bucket k : forward) {
            int vectors = Math.max(1, k.vectors() / 2);
            int cols = Math.min(k.cols(), k.group() * vectors * perVec);
            if (cols > last) {
                out.add(new Bucket(k.group(), vectors, cols));
                last = cols;
            }
        }
        return out;
    }

    /** One line for people, as the forward's description is. */
    static String description(Genome g, Precision dtype) {
        Genome.ClusterRows c = g.clusterRows();
        String cluster = clusterTakesRows(g, dtype) ? "; then a row on chip per cluster of up to " + c.maxCluster()
                + " blocks of " + c.threads() + " threads, to " + (long) clusterCapacity(c, dtype) * c.maxCluster()
                + " columns" : "";
        return "builtin genome, backward: y and dy in registers, a row per " + g.shortRows().minLanes()
                + "-32 lanes or a block of " + g.blockRows().minThreads() + "-" + g.blockRows().maxThreads()
                + " threads, up to " + registerCols(g, dtype) + " columns" + cluster + "; else a block per row, "
                + "y and dy read twice, each thread's sum compensated";
    }
}
