package dev.kevo.agent;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The built-in agent's description of a softmax kernel file: one design per shape regime, each rendered by
 * {@link KernelRenderer} into kernels and launch plans. Plans are tried in the order short, split, block,
 * cluster, block, loop; loop is the catch-all, so every shape is covered whatever the thresholds are.
 *
 * <p>A genome may hold any values; {@link #normalized(Precision)} maps it onto the space the renderer is correct
 * for in a dtype (powers of two where kernels need them, register budgets, thresholds in range). The agent only
 * ever renders and stores genomes normalized for its campaign's dtype.
 *
 * <p>The genome is the same in every dtype; only what its widths come to differs. A {@code vec} counts 4-byte
 * words of x per access, so that an access moves the same bytes in every dtype: {@code vec} floats, or twice as
 * many 16-bit elements ({@link #vecElems}). Everything held on chip is held as floats (math is float32 in every
 * dtype), so register and shared-memory budgets count floats.
 *
 * @param shortRows rows of up to {@code maxCols}: a row per group of lanes of one warp, held in registers
 * @param blockRows rows of up to {@code maxCols}: a row per block, held in registers
 * @param splitRows long rows when there are too few of them to fill the GPU: each row split over many blocks
 * @param clusterRows long rows of many: a row per thread-block cluster, held on chip
 * @param loopRows everything else: a block per row, two streaming reads of the row
 */
public record Genome(@JsonProperty("short") ShortRows shortRows, @JsonProperty("block") BlockRows blockRows,
                     @JsonProperty("split") SplitRows splitRows, @JsonProperty("cluster") ClusterRows clusterRows,
                     @JsonProperty("loop") LoopRows loopRows) {

    /** How exp(v - max) is evaluated. */
    public enum ExpMode {
        /** {@code expf}: a few ulp, a dozen instructions. */
        ACCURATE,
        /**
         * {@code ex2.approx.ftz} of {@code (v - max) * log2(e)}: the hardware exponential alone, results below
         * 2^-126 flushed to 0 (no output moves by more than that).
         */
        FAST,
        /** {@code exp2f((v - max) * log2(e))}: the hardware exponential and a fix-up that keeps subnormal results. */
        EXP2
    }

    /** Cache hint on loads of x. */
    public enum LoadHint { PLAIN, LDG, LDCG, LDCS }

    /** Cache hint on stores of y. */
    public enum StoreHint { PLAIN, STCG, STCS }

    /** How a block combines its threads' values. */
    public enum Reduce {
        /** Warp shuffles, one shared slot per warp, shuffles again. */
        SHUFFLE,
        /** A shared-memory tree with a barrier per level. */
        SMEM
    }

    /**
     * Short rows: a row per group of lanes, {@code cols <= maxCols}. Kernels come in buckets of growing
     * capacity: the first holds {@code minLanes * vec} columns (one vector per lane), each next one
     * {@code growth} times more, first by widening the group up to a warp, then by more vectors per lane.
     *
     * @param threads threads per block (rows per block = threads / lanes)
     * @param vec 4-byte words of x per load (rows that are not aligned to its elements are peeled); a group has at
     *     least as many lanes as a vector has elements, so that its lanes can take a peeled head or tail
     * @param online one reduction of (max, sum) pairs instead of a max then a sum reduction
     * @param skipMasked under masked_softmax's causal and padding masks, x is read only before the row's limit, the
     *     keys past it being masked whatever x holds there (as Triton's masked kernels load under the key mask). A row
     *     then moves fewer bytes, but its loads wait for its limit (its query's index, or its batch entry's length
     *     from memory): a gain where a grid's many rows hide that wait and limits cut rows short, a loss where one
     *     wave of rows waits for it. Only masked_softmax's kernels take it ({@link #normalized(Task)} clears it for
     *     every other operator); the block and cluster regimes have their own
     */
    public record ShortRows(int maxCols, int minLanes, int growth, int threads, int vec, boolean online,
                            ExpMode exp, LoadHint load, StoreHint store, boolean skipMasked) {
        public ShortRows {
            nonNull(exp, load, store);
        }
    }

    /**
     * Rows held in a block's registers, {@code cols <= maxCols}. Buckets: {@code minThreads} threads with
     * {@code firstElems} elements each, elements doubling up to {@code elems} (each at least one vector), then threads
     * doubling up to {@code maxThreads}, then elements doubling again.
     *
     * @param firstElems elements per thread of the narrowest bucket, at most {@code elems}: the rows just past the
     *     short regime's take all of a small block's threads without carrying {@code elems} registers a thread
     * @param minBlocks the blocks an SM each block kernel is compiled to fit ({@code __launch_bounds__}'s second
     *     argument), at most as many as an SM's threads hold; 0 or 1 leaves the registers to the compiler. A row a
     *     block waits on its block's reductions, so a kernel that fits one block more an SM keeps more rows' loads
     *     in flight, if the registers it gives up do not spill.
     * @param skipMasked as the short regime's ({@link ShortRows#skipMasked()})
     */
    public record BlockRows(int maxCols, int minThreads, int maxThreads, int elems, int firstElems, int vec,
                            boolean online, Reduce reduce, ExpMode exp, LoadHint load, StoreHint store,
                            int minBlocks, boolean skipMasked) {
        public BlockRows {
            nonNull(reduce, exp, load, store);
        }

        /** The blocks an SM a block kernel of {@code threads} threads is bounded to: 1 where it is not bounded. */
        public int blocksFor(int threads) {
            return Math.max(1, Math.min(minBlocks, MAX_THREADS_PER_SM / threads));
        }
    }

    /** The threads an SM holds (sm_80 and sm_90): no launch bound may ask for more. */
    public static final int MAX_THREADS_PER_SM = 2048;

    /**
     * A block streaming over part of a row, {@code tile} vectors of {@code vec} words in flight per thread
     * and iteration. {@code statsLoad} reads x for the (max, sum) pass, {@code normLoad} re-reads it to write.
     *
     * @param online update (max, sum) element by element instead of a tile's max first
     */
    public record Streaming(int threads, int vec, int tile, int unroll, boolean online, Reduce reduce,
                            ExpMode exp, LoadHint statsLoad, LoadHint normLoad, StoreHint store) {
        public Streaming {
            nonNull(reduce, exp, statsLoad, normLoad, store);
        }
    }

    /**
     * Split rows, used when {@code cols >= minCols} and {@code rows <= sms * rowsPct / 100} (and for rows too
     * long for the loop kernel's accuracy bound). Chunks per row:
     * {@code max(cdiv(cols, threads * 4096), min(cdiv(cols, minChunk), cdiv(blocksPerSm * sms, rows)))}.
     *
     * @param reverse the second pass visits the chunks read last (most likely still in L2) first
     * @param fused the one-launch designs tried first, for split rows whose chunks they can take
     */
    public record SplitRows(int minCols, int rowsPct, int minChunk, int blocksPerSm, boolean reverse,
                            Streaming pass, Fused fused) {
        public SplitRows {
            nonNull(pass, fused);
        }
    }

    /**
     * Split rows in one launch: a grid of {@code blocksPerSm * sms} blocks of {@code threads}, all resident at
     * once (at most 1024 threads per SM, so 64 registers per thread always fit), meeting at a grid-wide barrier
     * between the chunks' (max, sum) and the normalisation. Two launches cost a launch and a second read of x.
     *
     * @param elems 0, or the most elements per thread held in registers: chunks that fit (buckets of 4, 8, ...
     *     elements per thread, from one vector, up to this) are read once, like a copy
     * @param smem with {@code elems}: a last bucket that holds this many more vectors per thread in shared memory,
     *     for chunks longer than registers hold (on an H100 a 1x10^7 row fits on chip this way)
     * @param stream chunks that do not fit on chip are streamed twice within the one launch (the second read
     *     mostly from L2) instead of taking the two-launch plan
     */
    public record Fused(int elems, int smem, int threads, int blocksPerSm, int vec, boolean stream, Reduce reduce,
                        ExpMode exp, LoadHint load, StoreHint store) {
        public static final Fused OFF = new Fused(0, 0, 1024, 1, 4, false, Reduce.SHUFFLE, ExpMode.EXP2,
                LoadHint.PLAIN, StoreHint.PLAIN);
        /**
         * Shared memory of one Hopper SM (228 KB), and what each resident block costs besides its own: 1 KB the
         * driver reserves and up to 1.5 KB of the kernels' static arrays (NVRTC 11.8 lays out more than 1 KB for the
         * fused kernel's shuffle reduction, NVRTC 13.0 less). Four 256-thread blocks at 224 KB in all left only
         * three resident on an H100, and blocks waited forever for partials that never came.
         */
        public static final int SMEM_BYTES_PER_SM = 228 * 1024;
        public static final int SMEM_OVERHEAD_PER_BLOCK = 2560;

        /**
         * Vectors of {@code words} 4-byte words per thread a block may hold in shared memory with {@code blocksPerSm}
         * blocks on each SM.
         */
        public static int smemVectors(int threads, int blocksPerSm, int words) {
            return smemVectors(threads, blocksPerSm, words, 0);
        }

        /** As {@link #smemVectors(int, int, int)}, with {@code staticBytes} more of the kernel's own per block. */
        public static int smemVectors(int threads, int blocksPerSm, int words, int staticBytes) {
            return (SMEM_BYTES_PER_SM / blocksPerSm - SMEM_OVERHEAD_PER_BLOCK - staticBytes) / (threads * words * 4);
        }

        /**
         * The static shared memory of a fused block's reduction beyond the overhead: a (max, sum) pair per thread
         * with {@code REDUCE_SMEM}. Without it, the most vectors a thread at two 512-thread blocks per SM left one
         * block resident, and every such genome was rejected {@code resources-exceeded}.
         */
        public static int reduceBytes(int threads, Reduce reduce) {
            return reduce == Reduce.SMEM ? threads * 8 : 0;
        }

        public Fused {
            nonNull(reduce, exp, load, store);
        }

        public boolean enabled() {
            return elems > 0 || stream;
        }
    }

    /**
     * Long rows of many, {@code minCols < cols <= capacity(dtype) * maxCluster} (after the split regime, which takes
     * few rows, and before the block buckets): a row per thread-block cluster of {@code cdiv(cols, capacity(dtype))}
     * blocks of {@code threads}, each holding its share of the row on chip, {@code regVecs} 16-byte vectors of x per
     * thread in registers (as floats) and {@code smemVecs} more in shared memory (as x), and the blocks' (max, sum)
     * exchanged once in distributed shared memory: x is read once. {@code 1024 / threads} blocks share an SM, so one
     * loads while another reduces.
     *
     * @param minCols at most the block regime's {@code maxCols} once normalized, so that the two leave no rows of many
     *     between them to the loop regime's two reads
     * @param maxCluster 0 turns the regime off; 1 is a row per block (no cluster launch); up to 16: past 8, the portable
     *     size, the device decides whether such a cluster fits (the evaluator refuses one that cannot be resident).
     *     A cluster of 16 holds twice the row with the same shares a block, where more vectors a thread would cost
     *     registers and shared memory
     * @param group 0: a thread takes its exponentials once its whole share has landed; n: in groups of n of its shared
     *     vectors as each lands (one cp.async group each, against the group's own max), so that the last bytes are
     *     followed by a group's exponentials rather than the whole share's. Faster where a block's share fills it;
     *     where a row fills half its block, the groups' waits cost more than they hide
     * @param fit a row that a block of fewer threads holds whole (halving {@code threads}, down to 128, with the same
     *     vectors a thread) takes the smallest such block, without a cluster: a block sized to its row leaves room on
     *     the SM for more rows at once, where a row filling a third of a large block holds the SM alone
     * @param skipMasked as the short regime's ({@link ShortRows#skipMasked()})
     */
    public record ClusterRows(int minCols, int maxCluster, int threads, int regVecs, int smemVecs, int group,
                              boolean fit, LoadHint load, StoreHint store, boolean skipMasked) {
        public ClusterRows {
            nonNull(load, store);
        }

        /** Columns one block holds in {@code dtype}. */
        public int capacity(Precision dtype) {
            return capacity(threads, dtype);
        }

        /** Columns a block of {@code blockThreads} threads holds in {@code dtype}, each with this regime's vectors. */
        public int capacity(int blockThreads, Precision dtype) {
            return blockThreads * vecElems(4, dtype) * (regVecs + smemVecs);
        }

        /**
         * The smaller blocks that take the rows they hold whole ({@link #fit}), smallest first: thread counts from 128
         * up to half of {@code threads} whose block holds more than {@code minCols} columns; none without {@code fit}.
         */
        public List<Integer> fittedThreads(Precision dtype) {
            List<Integer> smaller = new ArrayList<>();
            for (int t = 128; fit && t < threads; t *= 2) {
                if (capacity(t, dtype) > minCols) {
                    smaller.add(t);
                }
            }
            return smaller;
        }

        public boolean enabled() {
            return maxCluster > 0;
        }
    }

    /** The catch-all: a block per row; {@code gridCap} 0 launches one per row, n at most n * sms looping over rows. */
    public record LoopRows(int gridCap, Streaming pass) {
        public LoopRows {
            nonNull(pass);
        }
    }

    private static void nonNull(Object... genes) {
        for (Object gene : genes) {
            if (gene == null) {
                throw new IllegalArgumentException("a gene is null");
            }
        }
    }

    /** Elements one thread may add sequentially in a streaming pass: keeps float sums within 1e-4. */
    public static final int MAX_TERMS_PER_THREAD = 4096;

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS);

    public JsonNode toJson() {
        return JSON.valueToTree(this);
    }

    /**
     * Reads a stored genome. Missing keys take the default genome's values, so genomes stored before a gene
     * was added still load; unknown keys and wrong types are errors. A block regime stored before
     * {@code firstElems} existed keeps its own {@code elems} there, so that it renders the kernels it was judged by.
     *
     * @throws IllegalArgumentException when the JSON is not a genome
     */
    public static Genome fromJson(JsonNode node, Genome defaults) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("a genome is a JSON object");
        }
        ObjectNode merged = (ObjectNode) defaults.toJson();
        overlay(merged, node);
        JsonNode block = node.get("block");
        if (block != null && block.has("elems") && !block.has("firstElems")) {
            ((ObjectNode) merged.get("block")).set("firstElems", block.get("elems"));
        }
        try {
            return JSON.treeToValue(merged, Genome.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a genome: " + e.getOriginalMessage(), e);
        }
    }

    private static void overlay(ObjectNode target, JsonNode source) {
        for (Map.Entry<String, JsonNode> e : source.properties()) {
            JsonNode existing = target.get(e.getKey());
            if (existing != null && existing.isObject() && e.getValue().isObject()) {
                overlay((ObjectNode) existing, e.getValue());
            } else {
                target.set(e.getKey(), e.getValue());
            }
        }
    }

    /** Elements of x that one access of {@code vec} 4-byte words moves in {@code dtype}. */
    public static int vecElems(int vec, Precision dtype) {
        return vec * 4 / dtype.x().bytes();
    }

    /**
     * Most floats one thread may hold in registers. ptxas (nvcc 13.0 and NVRTC 11.8, sm_90) keeps 32 per
     * thread in registers in every variant of the register kernels at every block size (at 1024 threads,
     * 64 registers, that is ~60 used); at 64 some variants spill. Rows held as float2 spill from 32 floats
     * on (from 16 at 1024 threads), so they get a quarter. Measured with -Xptxas -v over every combination
     * of the other genes at these limits: no spills. 16-bit rows keep 32 at every width: under nvcc 13.0, at these
     * limits, 16-byte vectors of 8 never spill, and 4- and 8-byte ones spill 4 to 12 bytes in a few variants, which
     * the float2 budget does not cure (a 128-thread block of 16 floats per thread still spills 4) but would cost the
     * default genome its block rows past 8192 columns.
     */
    public static int registerElems(int threads, int vec, Precision dtype) {
        if (vec == 2 && dtype.x().bytes() == 4) {
            return threads >= 1024 ? 8 : 16;
        }
        return 32;
    }

    /**
     * Most floats one thread of a streaming pass may load per unrolled iteration (tile * vec * unroll).
     * Beyond this ptxas (nvcc 13.0 and NVRTC 11.8, sm_90) spills a few bytes in some variants; and 16 floats
     * per thread already keep far more bytes in flight than DRAM latency needs.
     */
    public static int streamElems(int threads) {
        return threads >= 1024 ? 8 : 16;
    }

    /** {@link #normalized(Precision)} for float32, the dtype of every genome stored before there were others. */
    public Genome normalized() {
        return normalized(Precision.FP32);
    }

    /**
     * The same genome mapped onto the space the renderer is correct and register-resident for in {@code dtype}. In
     * float32 nothing depends on the dtype; a 16-bit x has vectors of twice as many elements, so lanes, elements per
     * thread and vectors held are bounded by what those vectors need and what registers hold.
     */
    public Genome normalized(Precision dtype) {
        return normalized(dtype, 1);
    }

    /**
     * {@link #normalized(Precision)} for {@code task}'s operator and dtype: what the agent stores and the renderer
     * renders. An operator whose output needs x itself (log_softmax writes (x - max) - log(sum)) holds x and its
     * exponentials together while a row's sum is taken. In the cluster regime that is more
     * than ptxas keeps in the 64 registers of two 512-thread blocks to an SM: with 8 register vectors of float x the
     * log_softmax kernel spilled, and its cluster plans lost a tenth of softmax's speed on the H100
     * (bench/results/log_softmax-h100/). So there it gets half the register vectors, and the ones it gives up move to
     * shared memory, which keeps the row a cluster holds.
     */
    public Genome normalized(Task task) {
        // masked_softmax's scores take registers too (the row's mask, its additive mask's entries): with a 16-bit x,
        // whose vectors are twice as many elements, ptxas spilled its cluster kernels at softmax's share.
        boolean masked = task.op().equals(Operators.MASKED_SOFTMAX);
        boolean masked16 = masked && task.dtype().x().bytes() == 2;
        Genome g = normalized(task.dtype(), task.op().equals(Operators.LOG_SOFTMAX) || masked16 ? 2 : 1);
        return masked ? g : g.withSkipMasked(false, false, false);
    }

    /** This genome with the short, block and cluster regimes' {@code skipMasked} set as given. */
    public Genome withSkipMasked(boolean shortSkips, boolean blockSkips, boolean clusterSkips) {
        ShortRows s = shortRows;
        BlockRows b = blockRows;
        ClusterRows c = clusterRows;
        return new Genome(new ShortRows(s.maxCols(), s.minLanes(), s.growth(), s.threads(), s.vec(), s.online(),
                s.exp(), s.load(), s.store(), shortSkips),
                new BlockRows(b.maxCols(), b.minThreads(), b.maxThreads(), b.elems(), b.firstElems(), b.vec(),
                        b.online(), b.reduce(), b.exp(), b.load(), b.store(), b.minBlocks(), blockSkips),
                splitRows, new ClusterRows(c.minCols(), c.maxCluster(), c.threads(), c.regVecs(), c.smemVecs(),
                        c.group(), c.fit(), c.load(), c.store(), clusterSkips), loopRows);
    }

    private Genome normalized(Precision dtype, int registerShare) {
        BlockRows block = normalize(blockRows, dtype);
        return new Genome(normalize(shortRows, dtype), block, normalize(splitRows, dtype),
                normalize(clusterRows, block.maxCols(), dtype, registerShare), normalize(loopRows, dtype));
    }

    private static ShortRows normalize(ShortRows s, Precision dtype) {
        int threads = pow2(s.threads(), 32, 1024);
        int vec = vec(s.vec());
        return new ShortRows(clamp(s.maxCols(), 1, 32 * registerElems(threads, vec, dtype)),
                pow2(s.minLanes(), Math.max(4, vecElems(vec, dtype)), 32), s.growth() >= 4 ? 4 : 2, threads, vec,
                s.online(), s.exp(), s.load(), s.store(), s.skipMasked());
    }

    private static BlockRows normalize(BlockRows b, Precision dtype) {
        int maxThreads = pow2(b.maxThreads(), 32, 1024);
        int minThreads = pow2(b.minThreads(), 32, maxThreads);
        int vec = vec(b.vec());
        int budget = registerElems(maxThreads, vec, dtype);
        int elems = pow2(b.elems(), vecElems(vec, dtype), budget);
        return new BlockRows(clamp(b.maxCols(), 1, maxThreads * budget), minThreads, maxThreads, elems,
                pow2(b.firstElems(), vecElems(vec, dtype), elems), vec, b.online(), b.reduce(), b.exp(), b.load(),
                b.store(), clamp(b.minBlocks(), 0, MAX_THREADS_PER_SM / minThreads), b.skipMasked());
    }

    private static Streaming normalize(Streaming p, Precision dtype) {
        int vec = vec(p.vec());
        int threads = pow2(p.threads(), 64, 1024);
        int perVec = vecElems(vec, dtype);
        int unroll = pow2(p.unroll(), 1, Math.min(4, streamElems(threads) / perVec));
        return new Streaming(threads, vec, clamp(p.tile(), 1, streamElems(threads) / (perVec * unroll)), unroll,
                p.online(), p.reduce(), p.exp(), p.statsLoad(), p.normLoad(), p.store());
    }

    private static SplitRows normalize(SplitRows s, Precision dtype) {
        return new SplitRows(clamp(s.minCols(), 1, 1 << 26), clamp(s.rowsPct(), 0, 100_000),
                clamp(s.minChunk(), 32, 1 << 24), clamp(s.blocksPerSm(), 1, 256), s.reverse(),
                normalize(s.pass(), dtype), normalize(s.fused(), dtype));
    }

    private static Fused normalize(Fused f, Precision dtype) {
        int threads = pow2(f.threads(), 128, 1024);
        int vec = vec(f.vec());
        int perVec = vecElems(vec, dtype);
        int elems = f.elems() <= 0 ? 0 : pow2(f.elems(), Math.max(4, perVec), registerElems(threads, vec, dtype));
        int blocksPerSm = pow2(f.blocksPerSm(), 1, 1024 / threads);
        // Shared memory holds the chunk as floats: a vector takes perVec words.
        int smem = elems == 0 ? 0 : clamp(f.smem(), 0, Fused.smemVectors(threads, blocksPerSm, perVec,
                Fused.reduceBytes(threads, f.reduce())));
        return new Fused(elems, smem, threads, blocksPerSm, vec, f.stream(), f.reduce(), f.exp(), f.load(),
                f.store());
    }

    /** The same pass with another block size, its tile and unroll brought within that size's register budget. */
    public static Streaming withThreads(Streaming pass, int threads, Precision dtype) {
        return normalize(new Streaming(threads, pass.vec(), pass.tile(), pass.unroll(), pass.online(), pass.reduce(),
                pass.exp(), pass.statsLoad(), pass.normLoad(), pass.store()), dtype);
    }

    /**
     * The cluster regime starts no later than the block regime ends ({@code blockMaxCols}): a row of many that no
     * block holds is held on chip, not left to the loop regime, which reads it twice and keeps it in L2 between the
     * reads only while its blocks' rows fit there (bench/results/campaign-bf16-h100/mincols/).
     */
    private static ClusterRows normalize(ClusterRows c, int blockMaxCols, Precision dtype, int registerShare) {
        int threads = pow2(c.threads(), 128, 1024);
        // Its vectors are 16 bytes of x: floats in registers, x as it is (cp.async's copy) in shared memory.
        int regMost = registerElems(threads, 4, dtype) / vecElems(4, dtype);
        int regVecs = pow2(c.regVecs(), 1, Math.max(1, regMost / registerShare));
        // A share of the registers moves what it no longer holds to shared memory (below, within what fits there).
        int moved = registerShare > 1 ? Math.max(0, pow2(c.regVecs(), 1, regMost) - regVecs) : 0;
        // With fit, the smaller blocks keep as many vectors a thread and must fit as many more to an SM.
        int smemMost = Fused.smemVectors(threads, 1024 / threads, 4);
        for (int t = 128; c.fit() && t < threads; t *= 2) {
            smemMost = Math.min(smemMost, Fused.smemVectors(t, 1024 / t, 4));
        }
        int smemVecs = clamp(c.smemVecs() + moved, 0, smemMost);
        int maxCluster = c.maxCluster() <= 0 ? 0 : pow2(c.maxCluster(), 1, 16);
        // A group of all the shared vectors, or more, is the one wait of group 0.
        int group = c.group() <= 0 || c.group() >= smemVecs ? 0 : c.group();
        int minCols = clamp(c.minCols(), 1024, Math.max(1024, blockMaxCols));
        return new ClusterRows(minCols, maxCluster, threads, regVecs, smemVecs, group, c.fit(), c.load(), c.store(),
                c.skipMasked());
    }

    private static LoopRows normalize(LoopRows l, Precision dtype) {
        return new LoopRows(clamp(l.gridCap(), 0, 64), normalize(l.pass(), dtype));
    }

    private static int clamp(int v, int lo, int hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    private static int vec(int v) {
        return v >= 4 ? 4 : v >= 2 ? 2 : 1;
    }

    /** The largest power of two not above v, within [lo, hi] (both powers of two). */
    private static int pow2(int v, int lo, int hi) {
        return clamp(Integer.highestOneBit(Math.max(1, v)), lo, hi);
    }
}
