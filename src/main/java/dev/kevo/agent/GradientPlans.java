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
 * dy in registers, and its loop regime takes every longer row, reading y and dy twice. The kernels are
 * genome-backward.cu's, whose row statistic is one dot product.
 *
 * <p>A thread holds two inputs where the forward's holds one, so each register bucket keeps half the forward's vectors
 * (at least one) and so half its columns: the registers the genome's normalization budgets for x then hold y and dy.
 * The forward's split, fused and cluster regimes have no backward kernels yet: rows past the block buckets go to the
 * loop.
 */
final class GradientPlans {
    private static final List<String> ARGS = List.of("y", "dy", "dx", "rows", "cols");

    private GradientPlans() {
    }

    /** The plans in {@code dtype} for a genome already normalized, in header order: short, block, loop. */
    static List<Plan> plans(Genome g, Precision dtype) {
        Genome.ShortRows s = g.shortRows();
        String params = "const " + dtype.x().cudaType() + "* __restrict__ y, const " + dtype.x().cudaType()
                + "* __restrict__ dy, " + dtype.y().cudaType() + "* __restrict__ dx, int rows, int cols";
        List<Plan> plans = new ArrayList<>();
        int shortMax = 0;
        for (Bucket k : halved(KernelRenderer.shortBuckets(s, dtype), Genome.vecElems(s.vec(), dtype))) {
            int rowsPerBlock = s.threads() / k.group();
            Kernel kernel = new Kernel("grad_short_g" + k.group() + "_n" + k.vectors(), s.threads(), params,
                    "grad_register_rows<ShortCfg, " + s.threads() + ", " + k.group() + ", " + k.vectors()
                            + ">(y, dy, dx, rows, cols)");
            String grid = rowsPerBlock == 1 ? "rows" : "cdiv(rows, " + rowsPerBlock + ")";
            plans.add(new Plan("cols <= " + k.cols(), List.of(new Launch(kernel, grid, ARGS))));
            shortMax = k.cols();
        }
        Genome.BlockRows b = g.blockRows();
        for (Bucket k : halved(KernelRenderer.blockBuckets(b, dtype), Genome.vecElems(b.vec(), dtype))) {
            if (k.cols() > shortMax) {  // narrower buckets are shadowed by the short plans
                Kernel kernel = new Kernel("grad_block_t" + k.group() + "_n" + k.vectors(), k.group(), params,
                        "grad_register_rows<BlockCfg, " + k.group() + ", " + k.group() + ", " + k.vectors()
                                + ">(y, dy, dx, rows, cols)");
                plans.add(new Plan("cols <= " + k.cols(), List.of(new Launch(kernel, "rows", ARGS))));
            }
        }
        Genome.LoopRows loop = g.loopRows();
        Kernel kernel = new Kernel("grad_loop", loop.pass().threads(), params,
                "grad_loop_rows<LoopCfg>(y, dy, dx, rows, cols)");
        String grid = loop.gridCap() == 0 ? "rows" : "min(rows, " + loop.gridCap() + " * sms)";
        plans.add(new Plan("true", List.of(new Launch(kernel, grid, ARGS))));
        return plans;
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
        List<Plan> plans = plans(g, dtype);
        String registers = plans.size() > 1 ? plans.get(plans.size() - 2).when() : "none";
        return "builtin genome, backward: y and dy in registers, a row per " + g.shortRows().minLanes()
                + "-32 lanes or a block of " + g.blockRows().minThreads() + "-" + g.blockRows().maxThreads()
                + " threads, up to the last register plan (" + registers + "); else a block per row, y and dy read "
                + "twice, each thread's sum compensated";
    }
}
