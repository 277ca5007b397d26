package dev.kevo.agent;

import dev.kevo.agent.Genome.BlockRows;
import dev.kevo.agent.Genome.ClusterRows;
import dev.kevo.agent.Genome.ExpMode;
import dev.kevo.agent.Genome.Fused;
import dev.kevo.agent.Genome.LoadHint;
import dev.kevo.agent.Genome.LoopRows;
import dev.kevo.agent.Genome.Reduce;
import dev.kevo.agent.Genome.ShortRows;
import dev.kevo.agent.Genome.SplitRows;
import dev.kevo.agent.Genome.StoreHint;
import dev.kevo.agent.Genome.Streaming;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The genomes the built-in agent starts from: each operator's and dtype's default, the design we know to be fastest
 * without measuring and the fresh genome the agent draws most often, and a few hand-picked others ({@link #named}, the
 * default first). What each default holds, and the measurement that chose it, is said where it is built.
 */
public final class DefaultGenomes {

    private DefaultGenomes() {
    }

    /**
     * The float32 default, the strongest design we know without measuring: a warp per row (two rows per warp up to 64
     * columns) with the row in registers and 16-byte accesses up to 512 columns; a block per row in registers up to
     * 16384, with scalar accesses, 8 floats per thread in 128-thread blocks up to 1024 columns and 16 beyond (within 32
     * registers, two 1024-thread blocks per SM; 16-byte accesses and their peeling take 40). A warp holding 32 floats a
     * lane made rows of 513 to 1024 columns wait on the longest chain of loads and exponentials; a block spreads them
     * over four times the threads (bench/results/short-to-block-h100/). Rows of 8192+ columns with no more rows than
     * SMs split over the whole GPU in one launch, two 512-thread blocks per SM exchanging partials, each chunk in
     * registers (up to 32 floats per thread) and shared memory (52 more), which holds a 1x10^7 row on an H100, or, when
     * too long, streamed twice; a block per row reading twice beyond that. (Two 512-thread blocks per SM beat one
     * 1024-thread block on every long-row shape of the standard suite.)
     */
    public static Genome float32() {
        return new Genome(
                new ShortRows(512, 16, 2, 256, 4, false, ExpMode.EXP2, LoadHint.PLAIN, StoreHint.PLAIN, false),
                new BlockRows(16384, 128, 1024, 16, 8, 1, false, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.PLAIN,
                        StoreHint.PLAIN, 0, false),
                new SplitRows(8192, 100, 4096, 8, true, new Streaming(256, 4, 4, 1, false, Reduce.SHUFFLE,
                        ExpMode.EXP2, LoadHint.PLAIN, LoadHint.LDCS, StoreHint.STCS),
                        new Fused(32, 13, 512, 2, 4, true, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.PLAIN,
                                StoreHint.PLAIN)),
                LONG_ROWS_ON_CHIP,
                new LoopRows(0, new Streaming(512, 4, 2, 1, false, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.PLAIN,
                        LoadHint.LDCS, StoreHint.STCS)));
    }

    /**
     * {@link #float32()} for float32; for a 16-bit x, the champion of the fifth 10-minute bf16 campaign
     * (bench/results/dtypes-h100/campaign-bf16-10min-5/), the best 16-bit design measured then, with two changes since
     * (below): 16-byte accesses of 8 elements everywhere, rows of up to 1024 columns on 16 lanes or more in 128-thread
     * blocks, blocks of 128 to 512 threads holding 16 elements a thread and then 32 up to 16384 columns, long rows no
     * more than the SMs split over two 512-thread blocks per SM (32 elements a thread in registers, 48 in shared
     * memory), and a row of more than 16384 columns of many held across a cluster of up to 16 blocks of 256 threads, 32
     * elements a thread in registers and 64 in shared memory, its exponentials taken as each two of a thread's shared
     * vectors land (group 2: faster for the forward operators' rows held on chip than taking them after the whole
     * share, bench/results/training-family-h200/ calls 33-34); with {@code fit}, a row that a smaller block holds whole
     * takes one of its own. The changes, each measured in softmax, log_softmax and masked_softmax side by side with
     * the genome before it (bench/results/training-family-h200/probes/, README.md in each): the champion split rows
     * while they were up to twice the SMs only because no shape of its suite had between one and two rows an SM, and
     * such rows ran faster as a row a block or cluster (rows-pct/), so the split regime takes as many rows as the
     * float default's; and its clusters were of up to 8 blocks of 512 threads, two an SM, whose wave waits on its
     * clusters' exchanges together, as the loss's did (LOSS_SIXTEEN_BIT): blocks of 256 threads, four an SM, ran the
     * LM-head rows faster, and up to 16 of them (non-portable, launched where resident) hold 262144 columns, which 8
     * did not (cluster-threads/). Its two-launch split pass, which serves only rows too long for the one-launch plans
     * and which no campaign has timed, stays the earlier default's. Campaigns that start from it:
     * bench/results/campaign-bf16-h100/.
     */
    public static Genome of(Precision dtype) {
        return dtype.x().bytes() == 2 ? SIXTEEN_BIT.normalized(dtype) : float32();
    }

    /**
     * {@link #of(Precision)} for {@code task}'s dtype, with the cluster regime of a gradient operator
     * (softmax_backward, log_softmax_backward) up to 16 blocks of 512 threads ({@link #GRADIENT_THREADS}), where the
     * float default has 8 (and the 16-bit one 256-thread blocks). A gradient's cluster block holds a share of two rows,
     * y and dy, in the registers and shared memory softmax's holds one in, so at 8 blocks its clusters ended at half
     * softmax's columns (131072 float32), and the LM-head rows past that (151936, 262144 columns) fell to the loop that
     * reads y and dy twice. Clusters of 16 (non-portable, launched where resident) hold them on chip:
     * bench/results/training-family-h200/ (call 21) measured both defaults side by side. log_softmax_backward with a
     * 16-bit x also holds more a block in shared memory ({@link #GRADIENT_SMEM_VECS_16}): at the dtype's share a
     * 262144-column row took clusters of 11 blocks, which leave an SM's second block slot idle wherever a GPC's free
     * slots number fewer than 11, and 50257 columns took three blocks of a third each; holding 32768 columns a block,
     * those rows take 8 and 2 (calls 32-33 there). softmax_backward, whose write phase takes no exponential, ran slower
     * so and keeps the dtype's share. A loss (cross_entropy) takes its cluster's shared part whole, not in the 16-bit
     * default's groups, with which its best known genome ran slower (call 34 there); with a 16-bit x it starts from
     * that genome ({@link #LOSS_SIXTEEN_BIT}). masked_softmax takes block rows of its own and the regimes that skip
     * masked keys ({@link #masked}).
     */
    public static Genome of(Task task) {
        Genome d = of(task.dtype());
        Genome.ClusterRows c = d.clusterRows();
        if (task.op().reducedOutput().isPresent()) {
            if (task.dtype().x().bytes() == 2) {
                return LOSS_SIXTEEN_BIT.normalized(task.dtype());
            }
            return withCluster(d, new Genome.ClusterRows(c.minCols(), c.maxCluster(), c.threads(), c.regVecs(),
                    c.smemVecs(), 0, c.fit(), c.load(), c.store(), c.skipMasked()));
        }
        if (task.op().equals(Operators.MASKED_SOFTMAX)) {
            return masked(d, task.dtype());
        }
        if (task.op().gradientOf().isEmpty()) {
            return d;
        }
        boolean wider = task.op().equals(Operators.LOG_SOFTMAX_BACKWARD) && task.dtype().x().bytes() == 2;
        int smemVecs = wider ? GRADIENT_SMEM_VECS_16 : c.smemVecs();
        return withCluster(d, new Genome.ClusterRows(c.minCols(), GRADIENT_MAX_CLUSTER, GRADIENT_THREADS,
                c.regVecs(), smemVecs, c.group(), c.fit(), c.load(), c.store(), c.skipMasked()));
    }

    /**
     * masked_softmax's default: the dtype's {@code d} with block rows of its own and the regimes that skip the keys
     * past a causal or padding limit ({@code skipMasked}).
     * <p>
     * Block rows: fewer rows' worth of prologue a thread. A block kernel finds its row's query, batch entry and mask
     * row once a row, and scores each value against the mask; a 16-bit thread of 16 values, or a float thread of 16
     * scalars, paid that once for few values and ran the 4096-key prefill rows short of the unmasked ones. 16-bit
     * threads hold 32 values from 4096 columns on (128 threads a row of 4096, which hold their mask's words: see the
     * library's Prologue::Words); float threads read 16-byte vectors (calls 47-49 of
     * bench/results/training-family-h200/).
     * <p>
     * Skipping: every float regime, and the 16-bit block rows. The 16-bit short and cluster kernels ran the limit
     * kinds slower when they waited for the row's limit before their loads, a wait that a short row's few bytes a
     * thread, or a cluster block's first copies, do not hide (call 52 there).
     */
    private static Genome masked(Genome d, Precision dtype) {
        boolean sixteenBit = dtype.x().bytes() == 2;
        BlockRows b = d.blockRows();
        BlockRows block = new BlockRows(b.maxCols(), b.minThreads(), b.maxThreads(), sixteenBit ? 32 : b.elems(),
                b.firstElems(), sixteenBit ? b.vec() : 4, b.online(), b.reduce(), b.exp(), b.load(), b.store(),
                b.minBlocks(), b.skipMasked());
        return new Genome(d.shortRows(), block, d.splitRows(), d.clusterRows(), d.loopRows())
                .withSkipMasked(!sixteenBit, true, !sixteenBit).normalized(dtype);
    }

    private static Genome withCluster(Genome d, Genome.ClusterRows cluster) {
        return new Genome(d.shortRows(), d.blockRows(), d.splitRows(), cluster, d.loopRows());
    }

    /**
     * A loss's default with a 16-bit x: the champion genome of the bf16 cross_entropy campaign of
     * bench/results/training-family-h200/ (call 16), its cluster blocks of 256 threads instead of 512 (call 36
     * there). Its rows of up to 4096 columns take a 128-thread block each, and longer rows a cluster of blocks of
     * 256 threads that hold 32768 columns each (4 vectors a thread in registers, 12 in shared memory, taken whole),
     * so that four blocks share an SM: with two 512-thread blocks a wave's blocks wait on their clusters' exchange
     * together, and the LM-head rows of 151936 and 262144 columns ran slower. The dtype's forward default ran the
     * loss slower on every llm shape (calls 34 and 37 there).
     */
    private static final Genome LOSS_SIXTEEN_BIT = new Genome(
            new ShortRows(1024, 8, 2, 128, 4, false, ExpMode.FAST, LoadHint.LDG, StoreHint.STCS, false),
            new BlockRows(4096, 128, 128, 16, 16, 4, false, Reduce.SHUFFLE, ExpMode.FAST, LoadHint.LDG,
                    StoreHint.PLAIN, 0, false),
            new SplitRows(8192, 200, 4096, 11, true, new Streaming(256, 2, 2, 1, false, Reduce.SHUFFLE,
                    ExpMode.EXP2, LoadHint.PLAIN, LoadHint.LDCS, StoreHint.STCS),
                    new Fused(32, 6, 512, 2, 4, true, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.LDCG, StoreHint.PLAIN)),
            new ClusterRows(4096, 8, 256, 4, 12, 0, true, LoadHint.LDG, StoreHint.STCG, false),
            new LoopRows(0, new Streaming(512, 1, 2, 1, false, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.PLAIN,
                    LoadHint.LDCS, StoreHint.STCG)));

    /** The blocks a gradient operator's default cluster may span: {@link #of(Task)} says why. */
    static final int GRADIENT_MAX_CLUSTER = 16;

    /**
     * A gradient operator's default cluster blocks: 512 threads, with which its cluster regime and its shares
     * ({@link #GRADIENT_SMEM_VECS_16}) were measured; the 16-bit forward default's 256-thread blocks would halve
     * what a block holds of its two rows, and no gradient has run with them.
     */
    static final int GRADIENT_THREADS = 512;

    /**
     * log_softmax_backward's default cluster regime's shared-memory vectors with a 16-bit x (y's and dy's together:
     * 96 KiB a 512-thread block, two blocks an SM): {@link #of(Task)} says why.
     */
    static final int GRADIENT_SMEM_VECS_16 = 12;

    private static final Genome SIXTEEN_BIT = new Genome(
            new ShortRows(1024, 16, 2, 128, 4, false, ExpMode.FAST, LoadHint.LDG, StoreHint.PLAIN, false),
            new BlockRows(16384, 128, 512, 16, 16, 4, false, Reduce.SHUFFLE, ExpMode.FAST, LoadHint.LDG,
                    StoreHint.PLAIN, 0, false),
            new SplitRows(8192, 100, 4096, 8, true, new Streaming(256, 2, 2, 1, false, Reduce.SHUFFLE, ExpMode.EXP2,
                    LoadHint.PLAIN, LoadHint.LDCS, StoreHint.STCS),
                    new Fused(32, 6, 512, 2, 4, true, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.PLAIN, StoreHint.PLAIN)),
            new ClusterRows(16384, 16, 256, 4, 8, 2, true, LoadHint.PLAIN, StoreHint.PLAIN, false),
            new LoopRows(0, new Streaming(512, 4, 2, 1, false, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.PLAIN,
                    LoadHint.LDCS, StoreHint.STCS)));

    /**
     * Rows past 16384 columns of many: a row per cluster of up to 8 blocks of 512 threads, 32 floats per thread in
     * registers and 32 in shared memory, two blocks per SM so that one loads while the other reduces (one
     * 1024-thread block per SM holding its share in registers alone idles the SM while it reduces).
     */
    static final ClusterRows LONG_ROWS_ON_CHIP = new ClusterRows(16384, 8, 512, 8, 8, 0, false, LoadHint.PLAIN,
            StoreHint.PLAIN, false);

    /**
     * Hand-picked starting points, {@code default} first, normalized for float32: {@code register-rows} follows the
     * hand-written seed of that name (scalar accesses, expf, block_stats-style chunks); {@code online} takes one
     * (max, sum) reduction everywhere with {@code __expf} and read-only loads; {@code wide} uses bigger blocks, more
     * elements per thread and more chunks per long row.
     */
    public static Map<String, Genome> named() {
        return named(Precision.FP32);
    }

    /**
     * {@link #named()} for {@code dtype}: its {@link #of(Precision) default} first, the others
     * normalized for it. A 16-bit x moves twice the elements per access, so the scalar accesses of
     * {@code register-rows} become pairs of elements.
     */
    public static Map<String, Genome> named(Precision dtype) {
        return named(dtype, of(dtype));
    }

    /** {@link #named(Precision)} for {@code task}, whose {@link #of(Task) default} comes first. */
    public static Map<String, Genome> named(Task task) {
        return named(task.dtype(), of(task));
    }

    private static Map<String, Genome> named(Precision dtype, Genome first) {
        Genome d = float32();
        Map<String, Genome> named = new LinkedHashMap<>();
        named.put("default", first);
        named.put("register-rows", new Genome(
                new ShortRows(1024, 32, 2, 256, 1, false, ExpMode.ACCURATE, LoadHint.PLAIN, StoreHint.PLAIN, false),
                new BlockRows(16384, 256, 1024, 8, 8, 1, false, Reduce.SHUFFLE, ExpMode.ACCURATE, LoadHint.PLAIN,
                        StoreHint.PLAIN, 0, false),
                new SplitRows(16384, 100, 2048, 4, false, new Streaming(256, 1, 4, 1, true, Reduce.SHUFFLE,
                        ExpMode.ACCURATE, LoadHint.PLAIN, LoadHint.PLAIN, StoreHint.PLAIN), Fused.OFF),
                d.clusterRows(),
                new LoopRows(0, new Streaming(1024, 1, 2, 1, true, Reduce.SHUFFLE, ExpMode.ACCURATE,
                        LoadHint.PLAIN, LoadHint.PLAIN, StoreHint.PLAIN))));
        named.put("online", new Genome(
                new ShortRows(1024, 16, 2, 256, 4, true, ExpMode.FAST, LoadHint.LDG, StoreHint.PLAIN, false),
                new BlockRows(16384, 128, 1024, 8, 8, 4, true, Reduce.SHUFFLE, ExpMode.FAST, LoadHint.LDG,
                        StoreHint.PLAIN, 0, false),
                new SplitRows(8192, 100, 4096, 8, true, new Streaming(256, 4, 4, 1, true, Reduce.SHUFFLE,
                        ExpMode.FAST, LoadHint.LDG, LoadHint.LDCS, StoreHint.STCS), Fused.OFF),
                d.clusterRows(),
                new LoopRows(0, new Streaming(512, 4, 2, 1, true, Reduce.SHUFFLE, ExpMode.FAST, LoadHint.LDG,
                        LoadHint.LDCS, StoreHint.STCS))));
        named.put("wide", new Genome(
                new ShortRows(1024, 8, 4, 512, 4, false, ExpMode.EXP2, LoadHint.LDCS, StoreHint.STCS, false),
                new BlockRows(32768, 256, 1024, 16, 16, 4, false, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.LDCS,
                        StoreHint.STCS, 0, false),
                new SplitRows(16384, 200, 8192, 16, true, new Streaming(512, 4, 2, 2, false, Reduce.SHUFFLE,
                        ExpMode.EXP2, LoadHint.LDCG, LoadHint.LDCS, StoreHint.STCS), Fused.OFF),
                d.clusterRows(),
                new LoopRows(0, new Streaming(1024, 4, 2, 1, false, Reduce.SHUFFLE, ExpMode.EXP2, LoadHint.PLAIN,
                        LoadHint.LDCS, StoreHint.STCS))));
        named.replaceAll((name, g) -> g.normalized(dtype));
        return named;
    }
}
