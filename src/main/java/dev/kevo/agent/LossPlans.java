package dev.kevo.agent;

import dev.kevo.agent.KernelRenderer.Kernel;
import dev.kevo.agent.KernelRenderer.Launch;
import dev.kevo.agent.KernelRenderer.Plan;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import java.util.ArrayList;
import java.util.List;

/**
 * The launch plans of cross_entropy's file (the fused loss and its gradient; cross_entropy_sum's too), rendered from
 * the same genome as softmax's: its short and block buckets, its cluster regime and its loop, whose kernels compute
 * softmax's probabilities as softmax's file does and hand them to cross_entropy's epilogue (genome-library.cu's
 * {@code cross_entropy} sections), which writes dx and each row's loss. Every plan of the mean counts the live rows
 * first ({@code ce_count}, which dx's {@code g / n} needs; the sum needs no count), and every plan reduces the rows'
 * losses last ({@code ce_finish}), one block in a fixed order, so the loss is the same bits on every launch.
 *
 * <p>The split and fused regimes (a row over many blocks that meet through the workspace or the grid) have no loss
 * kernels, and the file leaves their code out: such rows go to the cluster or the loop. Rows longer than a loop thread
 * sums within {@link Genome#MAX_TERMS_PER_THREAD} terms, which softmax's split regime takes, go to a loop of 1024
 * threads, the most a thread's sum is spread over.
 */
final class LossPlans {
    /** Each row's loss (a float), then the live rows as an int. */
    static final String WORKSPACE = "rows * 4 + 16";

    private static final int WIDE_THREADS = 1024;
    private static final int WIDE_TILE = 4;
    private static final List<String> ARGS = List.of("x", "dx", "labels", "ws", "g", "rows", "cols");
    private static final Launch COUNT = new Launch(new Kernel("ce_count", 1024,
            "const long long* __restrict__ labels, float* __restrict__ ws, int rows", "loss_count(labels, ws, rows)"),
            "1", List.of("labels", "ws", "rows"));
    private static final Launch FINISH = new Launch(new Kernel("ce_finish", 1024,
            "const float* __restrict__ ws, float* __restrict__ loss, int rows", "loss_finish(ws, loss, rows)"),
            "1", List.of("ws", "loss", "rows"));

    private LossPlans() {
    }

    /** Whether the genome renders {@code op} through these plans: cross_entropy and cross_entropy_sum. */
    static boolean renders(Operator op) {
        return op.equals(Operators.CROSS_ENTROPY) || op.equals(Operators.CROSS_ENTROPY_SUM);
    }

    /** The plans in {@code dtype} for a genome normalized for {@code op} (a loss it {@link #renders}), header order. */
    static List<Plan> plans(Genome g, Precision dtype, Operator op) {
        boolean mean = op.equals(Operators.CROSS_ENTROPY);
        List<Plan> rows = KernelRenderer.rowPlans(g, dtype);
        List<Plan> plans = new ArrayList<>();
        for (Plan p : rows.subList(0, rows.size() - 1)) {
            Launch row = p.launches().getFirst();
            plans.add(wrap(loss(row, "ce_" + row.kernel().name().substring("softmax_".length())), p.when(), mean));
        }
        Launch loop = rows.getLast().launches().getFirst();  // the loop regime's, under "true"
        if (g.loopRows().pass().threads() < WIDE_THREADS) {
            plans.add(wrap(loss(loop, "ce_loop"), "cols <= " + loopLimit(g.loopRows().pass().threads()), mean));
            loop = new Launch(new Kernel("ce_loop_wide", WIDE_THREADS, loop.kernel().params(),
                    "loop_rows<WideLoopCfg>(x, y, rows, cols)"), "rows", loop.args());
            plans.add(wrap(loss(loop, "ce_loop_wide"), rows.getLast().when(), mean));
        } else {
            plans.add(wrap(loss(loop, "ce_loop"), rows.getLast().when(), mean));
        }
        return plans;
    }

    /**
     * The configuration struct of the wide loop: the loop regime's genes on 1024 threads, its exponentials summed a
     * tile at a time ({@code ONLINE} off, tiles of at least {@link #WIDE_TILE} vectors). On the longest rows kevo draws
     * (tens of millions of columns) a thread still takes tens of thousands of terms, past
     * {@link Genome#MAX_TERMS_PER_THREAD}; added a tile at a time, its running sum takes a tile's fewer roundings,
     * where an online sum would take one a term (256 threads of softmax's adding 172k terms each drifted past the
     * bound on 1x44152810).
     */
    static String configs(Genome g, Precision dtype) {
        return KernelRenderer.struct("WideLoopCfg", KernelRenderer.streaming(widePass(g, dtype), dtype));
    }

    static Genome.Streaming widePass(Genome g, Precision dtype) {
        Genome.Streaming p = g.loopRows().pass();
        return Genome.withThreads(new Genome.Streaming(WIDE_THREADS, p.vec(), Math.max(p.tile(), WIDE_TILE),
                p.unroll(), false, p.reduce(), p.exp(), p.statsLoad(), p.normLoad(), p.store()), WIDE_THREADS, dtype);
    }

    /** One line for people, as the forward's description is. */
    static String description(Genome g, Precision dtype, Operator op) {
        Genome.ShortRows s = g.shortRows();
        Genome.BlockRows b = g.blockRows();
        Genome.ClusterRows c = g.clusterRows();
        String cluster = c.enabled() ? "; " + c.minCols() + " < cols <= " + (long) c.capacity(dtype) * c.maxCluster()
                + ": a row on chip per cluster of up to " + c.maxCluster() + " blocks of " + c.threads() + " threads"
                : "";
        return "builtin genome, " + op.id() + (op.equals(Operators.CROSS_ENTROPY) ? ": the live rows counted by one "
                + "block;" : ":") + " in registers, cols <= "
                + s.maxCols() + " a row per " + s.minLanes() + "-32 lanes, cols <= " + b.maxCols()
                + " a row per block of " + b.minThreads() + "-" + b.maxThreads() + " threads" + cluster
                + "; else a block of " + g.loopRows().pass().threads() + " threads per row, two reads (1024 past "
                + loopLimit(g.loopRows().pass().threads()) + " columns); dx = g (p - onehot)"
                + (op.equals(Operators.CROSS_ENTROPY) ? " / n" : "") + " written from softmax's probabilities, an "
                + "ignored row's x never read, each row's loss into the workspace and summed in a fixed order by one "
                + "block";
    }

    private static long loopLimit(int threads) {
        return (long) threads * Genome.MAX_TERMS_PER_THREAD;
    }

    /** Softmax's launch as cross_entropy's: its arguments, and the loss's set for the block before the template. */
    private static Launch loss(Launch softmax, String name) {
        Kernel k = softmax.kernel();
        String params = k.params().replace("int rows, int cols", "int cols").replace("int cols",
                "const long long* __restrict__ labels, float* __restrict__ ws, float g, int rows, int cols");
        Kernel kernel = new Kernel(name, k.threads(), k.minBlocks(), params,
                "Loss::set(x, labels, ws, g, rows, cols);\n    " + k.call());
        return new Launch(kernel, softmax.grid(), softmax.smem(), softmax.cooperative(), softmax.cluster(), ARGS);
    }

    private static Plan wrap(Launch row, String when, boolean mean) {
        return new Plan(when, mean ? List.of(COUNT, row, FINISH) : List.of(row, FINISH));
    }
}
