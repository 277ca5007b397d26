package dev.kevo.agent;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Genome to kernel file. The CUDA is a fixed library of templates ({@link #LIBRARY}); a genome chooses one
 * configuration struct per regime and which template instances become {@code extern "C"} kernels, and the
 * header's plans route every shape to them. What makes the file correct for every shape lives in the
 * library and in {@link #plans}: each bucket's {@code when} never admits a row longer than its kernels hold,
 * and the last plan is {@code true}.
 *
 * <p>A file is rendered for one dtype, the campaign's, and declares it: the library's templates take x's and y's
 * element types from the kernels' pointers, and the plans' capacities count elements, which a 16-bit vector holds
 * twice as many of ({@link Genome#vecElems}).
 *
 * <p>A file is also rendered for one operator, the campaign's ({@link #render(Genome, Task)}): the kernels are the
 * same and only their epilogue differs, how a row's (max, 1 / sum) becomes y. The library marks the few lines where
 * operators differ ({@link #library(Operator)}); softmax's file is exactly what it was before other operators, so
 * that softmax campaigns did not change, and declares no {@code op} (softmax is the default).
 */
public final class KernelRenderer {

    private static final ObjectMapper JSON = new ObjectMapper();

    private KernelRenderer() {
    }

    /** One plan of the header: the shapes it takes and its launches. */
    public record Plan(String when, List<Launch> launches) {
        public Plan {
            launches = List.copyOf(launches);
        }
    }

    /**
     * One launch of a plan: {@code args} as the header lists them; {@code smem} dynamic shared memory or null;
     * {@code cooperative} for kernels that meet at a grid barrier; {@code cluster} the blocks per thread-block
     * cluster, or null for none.
     */
    public record Launch(Kernel kernel, String grid, String smem, boolean cooperative, String cluster,
                         List<String> args) {
        public Launch {
            args = List.copyOf(args);
        }

        Launch(Kernel kernel, String grid, List<String> args) {
            this(kernel, grid, null, false, null, args);
        }
    }

    /**
     * An {@code extern "C"} kernel: {@code threads} is its block size and {@code __launch_bounds__}, {@code call}
     * the library template instance its body calls.
     */
    public record Kernel(String name, int threads, int minBlocks, String params, String call) {
        Kernel(String name, int threads, String params, String call) {
            this(name, threads, 1, params, call);
        }

        /**
         * {@code minBlocks} > 1 makes ptxas fit that many blocks per SM: one-launch grids rely on it, and a block
         * kernel asks for it where its genome's {@code block.minBlocks} does.
         */
        String definition() {
            String bounds = minBlocks > 1 ? threads + ", " + minBlocks : Integer.toString(threads);
            return "extern \"C\" __global__ void __launch_bounds__(" + bounds + ") " + name + "(" + params
                    + ") {\n    " + call + ";\n}\n";
        }
    }

    /**
     * A register kernel's capacity: groups of {@code group} threads with {@code vectors} vectors each hold rows
     * of up to {@code cols} columns (already capped at the regime's maxCols).
     */
    record Bucket(int group, int vectors, int cols) {
    }

    private static final List<String> ROW_ARGS = List.of("x", "y", "rows", "cols");

    /** The kernel parameters x and y, in the dtype's element types, then {@code rest}. */
    private static String params(Precision dtype, String rest) {
        return "const " + dtype.x().cudaType() + "* __restrict__ x, " + dtype.y().cudaType() + "* __restrict__ y, "
                + rest;
    }

    /** The float32 file for a genome (normalized first). */
    public static String render(Genome genome) {
        return render(genome, Precision.FP32);
    }

    /** The softmax kernel file for a genome in {@code dtype} (normalized for it first). */
    public static String render(Genome genome, Precision dtype) {
        return render(genome, Task.softmax(dtype));
    }

    /** The complete kernel file for a genome computing {@code task}'s operator in its dtype. */
    public static String render(Genome genome, Task task) {
        Precision dtype = task.dtype();
        Genome g = genome.normalized(task);
        List<Plan> plans = plans(g, task);
        StringBuilder out = new StringBuilder();
        out.append("/*@kevo\n").append(header(g, task, plans)).append("\n*/\n");
        out.append("#include \"kevo.h\"\n\n");
        out.append("// Rendered by kevo's built-in agent from the genome\n// ").append(g.toJson()).append("\n\n");
        out.append(library(task.op())).append('\n');
        out.append(configs(g, task));
        if (LossPlans.renders(task.op())) {
            out.append(LossPlans.configs(g, dtype));
        }
        out.append('\n');
        plans.stream().flatMap(p -> p.launches().stream()).map(Launch::kernel).distinct()
                .forEach(k -> out.append(k.definition()));
        return out.toString();
    }

    /** The launch plans of {@code task}'s file, as its header lists them ({@link #plans(Genome, Precision)}). */
    public static List<Plan> plans(Genome genome, Task task) {
        if (task.op().gradientOf().isPresent()) {
            return GradientPlans.plans(genome.normalized(task), task.dtype());
        }
        if (LossPlans.renders(task.op())) {
            return LossPlans.plans(genome.normalized(task), task.dtype(), task.op());
        }
        return forOperator(plans(genome.normalized(task), task.dtype()), task);
    }

    /**
     * The launch plans in {@code dtype}, in the order the header lists them: short buckets, split, cluster, block
     * buckets, loop.
     */
    public static List<Plan> plans(Genome genome, Precision dtype) {
        return plans(genome, dtype, true);
    }

    /**
     * The plans of the regimes that hold a row in one block or cluster (short, cluster, block buckets, loop), without
     * the split and fused regimes' (a row over many blocks): what a loss's file wraps ({@link LossPlans}).
     */
    static List<Plan> rowPlans(Genome genome, Precision dtype) {
        return plans(genome, dtype, false);
    }

    private static List<Plan> plans(Genome genome, Precision dtype, boolean splitRows) {
        Genome g = genome.normalized(dtype);
        Genome.ShortRows s = g.shortRows();
        String rowParams = params(dtype, "int rows, int cols");
        List<Plan> plans = new ArrayList<>();
        for (Bucket k : shortBuckets(s, dtype)) {
            int rowsPerBlock = s.threads() / k.group();
            Kernel kernel = new Kernel("softmax_short_g" + k.group() + "_n" + k.vectors(), s.threads(), rowParams,
                    "register_rows<ShortCfg, " + s.threads() + ", " + k.group() + ", " + k.vectors() + ">(x, y, rows, cols)");
            String grid = rowsPerBlock == 1 ? "rows" : "cdiv(rows, " + rowsPerBlock + ")";
            plans.add(new Plan("cols <= " + k.cols(), List.of(new Launch(kernel, grid, ROW_ARGS))));
        }
        if (splitRows) {
            plans.addAll(fusedPlans(g, dtype));
            plans.add(splitPlan(g, dtype));
        }
        if (g.clusterRows().enabled()) {
            plans.addAll(clusterPlans(g.clusterRows(), dtype));
        }
        for (Bucket k : blockBuckets(g.blockRows(), dtype)) {
            if (k.cols() > s.maxCols()) {  // narrower buckets are shadowed by the short plans
                Kernel kernel = blockKernel("softmax", k, g.blockRows(), rowParams, "register_rows<BlockCfg, "
                        + k.group() + ", " + k.group() + ", " + k.vectors() + ">(x, y, rows, cols)");
                plans.add(new Plan("cols <= " + k.cols(), List.of(new Launch(kernel, "rows", ROW_ARGS))));
            }
        }
        Genome.LoopRows loop = g.loopRows();
        Kernel kernel = new Kernel("softmax_loop", loop.pass().threads(), rowParams, "loop_rows<LoopCfg>(x, y, rows, cols)");
        String grid = loop.gridCap() == 0 ? "rows" : "min(rows, " + loop.gridCap() + " * sms)";
        plans.add(new Plan("true", List.of(new Launch(kernel, grid, ROW_ARGS))));
        return plans;
    }

    /**
     * A block bucket's kernel, {@code PREFIX_block_tT_nN}, compiled for the blocks an SM its genome bounds it to; a
     * bounded one's name ends in them ({@code _b6}).
     */
    static Kernel blockKernel(String prefix, Bucket k, Genome.BlockRows b, String params, String call) {
        int blocks = b.blocksFor(k.group());
        return new Kernel(prefix + "_block_t" + k.group() + "_n" + k.vectors() + (blocks > 1 ? "_b" + blocks : ""),
                k.group(), blocks, params, call);
    }

    /**
     * Short buckets: capacity grows by {@code growth} per bucket, first by widening the group to a warp,
     * then by more vectors per lane, until it reaches maxCols (normalization keeps maxCols within what a
     * warp can hold in registers, so the loop ends).
     */
    static List<Bucket> shortBuckets(Genome.ShortRows s, Precision dtype) {
        List<Bucket> out = new ArrayList<>();
        int perVec = Genome.vecElems(s.vec(), dtype);
        int lanes = s.minLanes();
        int vectors = 1;
        int maxVectors = Genome.registerElems(s.threads(), s.vec(), dtype) / perVec;
        while (true) {
            int cap = lanes * vectors * perVec;
            out.add(new Bucket(lanes, vectors, Math.min(cap, s.maxCols())));
            if (cap >= s.maxCols()) {
                return out;
            }
            int factor = s.growth();
            while (factor > 1 && lanes < 32) {
                lanes *= 2;
                factor /= 2;
            }
            vectors = Math.min(vectors * factor, maxVectors);
        }
    }

    /**
     * Block buckets: elements per thread double from firstElems to elems, then threads from minThreads to
     * maxThreads, then elements again.
     */
    static List<Bucket> blockBuckets(Genome.BlockRows b, Precision dtype) {
        List<Bucket> out = new ArrayList<>();
        int perVec = Genome.vecElems(b.vec(), dtype);
        int threads = b.minThreads();
        int vectors = b.firstElems() / perVec;
        while (true) {
            int cap = threads * vectors * perVec;
            out.add(new Bucket(threads, vectors, Math.min(cap, b.maxCols())));
            if (cap >= b.maxCols()) {
                return out;
            }
            if (vectors * perVec < b.elems()) {
                vectors *= 2;
            } else if (threads < b.maxThreads()) {
                threads *= 2;
            } else {
                vectors *= 2;
            }
        }
    }

    /**
     * Chunks per split row: enough blocks to fill the GPU ({@code blocksPerSm * sms} over all rows), chunks no
     * shorter than minChunk, and never so few that a thread sums more than {@link Genome#MAX_TERMS_PER_THREAD}.
     */
    public static String chunks(Genome.SplitRows s) {
        return "max(cdiv(cols, " + (long) s.pass().threads() * Genome.MAX_TERMS_PER_THREAD + "), min(cdiv(cols, "
                + s.minChunk() + "), cdiv(" + s.blocksPerSm() + " * sms, rows)))";
    }

    /** The shapes the split regime takes: few long rows, and rows too long for the loop kernel's accuracy bound. */
    private static String splitWhen(Genome g) {
        Genome.SplitRows s = g.splitRows();
        // Rows longer than this would have a loop thread add more than MAX_TERMS_PER_THREAD elements.
        long loopLimit = (long) g.loopRows().pass().threads() * Genome.MAX_TERMS_PER_THREAD;
        return "(cols >= " + s.minCols() + " && rows <= " + smsShare(s.rowsPct()) + ") || cols > " + loopLimit;
    }

    /** Chunks per row of a one-launch plan: the co-resident grid shared equally among the rows. */
    static String fusedChunks(Genome.Fused f) {
        return f.blocksPerSm() + " * sms / rows";
    }

    /**
     * One-launch plans for split rows, before the two-launch one: register buckets for chunks of up to
     * threads * elems elements, then (with {@code stream}) any chunk. Both need no more rows than the grid
     * has blocks; a stream thread must not sum more than MAX_TERMS_PER_THREAD elements either.
     */
    static List<Plan> fusedPlans(Genome g, Precision dtype) {
        Genome.Fused f = g.splitRows().fused();
        List<Plan> plans = new ArrayList<>();
        if (!f.enabled()) {
            return plans;
        }
        String regime = "(" + splitWhen(g) + ") && rows <= " + f.blocksPerSm() + " * sms";
        int perVec = Genome.vecElems(f.vec(), dtype);
        if (f.elems() > 0) {
            for (int e = Math.max(4, perVec); e <= f.elems(); e *= 2) {
                plans.add(residentPlan(f, dtype, regime, e / perVec, 0));
            }
            if (f.smem() > 0) {
                plans.add(residentPlan(f, dtype, regime, f.elems() / perVec, f.smem()));
            }
        }
        if (f.stream()) {
            plans.add(fusedPlan(f, dtype, regime, "softmax_fused_stream", "split_fused_stream<FusedStreamCfg>",
                    (long) f.threads() * Genome.MAX_TERMS_PER_THREAD, null));
        }
        return plans;
    }

    /**
     * Chunks of up to threads * (n + smem) vectors on chip: n per thread in registers, smem in shared memory (as
     * floats, 4 bytes an element).
     */
    private static Plan residentPlan(Genome.Fused f, Precision dtype, String regime, int n, int smem) {
        int perVec = Genome.vecElems(f.vec(), dtype);
        String name = "softmax_fused_e" + n * perVec + (smem > 0 ? "_s" + smem * perVec : "");
        String smemBytes = smem > 0 ? Long.toString((long) f.threads() * smem * perVec * 4) : null;
        return fusedPlan(f, dtype, regime, name, "split_fused<FusedCfg, " + f.threads() + ", " + n + ", " + smem + ">",
                (long) f.threads() * (n + smem) * perVec, smemBytes);
    }

    /**
     * A one-launch plan: the cooperative grid of {@link #fusedChunks} blocks per row running {@code template},
     * for rows of up to {@code colsPerChunk} columns per chunk; {@code smemBytes} null for none.
     */
    private static Plan fusedPlan(Genome.Fused f, Precision dtype, String regime, String name, String template,
                                  long colsPerChunk, String smemBytes) {
        String chunks = fusedChunks(f);
        Kernel kernel = new Kernel(name, f.threads(), f.blocksPerSm(), params(dtype, "int cols, int chunks"),
                template + "(x, y, cols, chunks)");
        return new Plan(regime + " && cols <= (" + chunks + ") * " + colsPerChunk, List.of(new Launch(kernel,
                "rows * (" + chunks + ")", smemBytes, true, null, List.of("x", "y", "cols", chunks))));
    }

    /**
     * Long rows of many: a row per cluster of cdiv(cols, capacity) blocks, each block's share held on chip; with
     * {@code fit}, first the rows that a smaller block holds whole, each in the smallest such block.
     */
    static List<Plan> clusterPlans(Genome.ClusterRows c, Precision dtype) {
        List<Plan> plans = new ArrayList<>();
        for (int threads : c.fittedThreads(dtype)) {
            plans.add(new Plan("cols > " + c.minCols() + " && cols <= " + c.capacity(threads, dtype), List.of(
                    new Launch(clusterKernel(c, threads, dtype), "rows", clusterSmem(c, threads), false, null,
                            List.of("x", "y", "cols")))));
        }
        String blocks = "cdiv(cols, " + c.capacity(dtype) + ")";
        plans.add(new Plan("cols > " + c.minCols() + " && cols <= " + (long) c.capacity(dtype) * c.maxCluster(),
                List.of(new Launch(clusterKernel(c, c.threads(), dtype), "rows * " + blocks,
                        clusterSmem(c, c.threads()), false, c.maxCluster() > 1 ? blocks : null,
                        List.of("x", "y", "cols")))));
        return plans;
    }

    private static Kernel clusterKernel(Genome.ClusterRows c, int threads, Precision dtype) {
        return new Kernel("softmax_cluster_t" + threads + "_r" + c.regVecs() + "_s" + c.smemVecs()
                + (c.group() > 0 ? "_g" + c.group() : ""), threads,
                1024 / threads, params(dtype, "int cols"),
                "cluster_rows<ClusterCfg, " + threads + ", " + c.regVecs() + ", " + c.smemVecs() + ">(x, y, cols)");
    }

    private static String clusterSmem(Genome.ClusterRows c, int threads) {
        return c.smemVecs() > 0 ? Long.toString((long) threads * c.smemVecs() * 16) : null;
    }

    private static Plan splitPlan(Genome g, Precision dtype) {
        Genome.SplitRows s = g.splitRows();
        String chunks = chunks(s);
        String when = splitWhen(g);
        int threads = s.pass().threads();
        Kernel stats = new Kernel("softmax_split_stats", threads,
                "const " + dtype.x().cudaType() + "* __restrict__ x, float2* __restrict__ ws, int cols, int chunks",
                "split_stats<SplitCfg>(x, ws, cols, chunks)");
        Kernel norm = new Kernel("softmax_split_norm", threads,
                params(dtype, "const float2* __restrict__ ws, int cols, int chunks"),
                "split_norm<SplitCfg>(x, y, ws, cols, chunks)");
        String grid = "rows * " + chunks;
        return new Plan(when, List.of(new Launch(stats, grid, List.of("x", "ws", "cols", chunks)),
                new Launch(norm, grid, List.of("x", "y", "ws", "cols", chunks))));
    }

    private static final List<String> ATTENTION_ARGS = List.of("lengths", "mask", "scale", "heads", "queries",
            "mask_kind");

    /**
     * {@code plans} as {@code task}'s operator launches them: masked_softmax's kernels take the attention arguments
     * after softmax's and hand them to the library (Attention::set) before the template runs, which then reads x
     * through masked_softmax's prologue; every other operator's kernels are softmax's.
     */
    private static List<Plan> forOperator(List<Plan> plans, Task task) {
        if (!task.op().equals(Operators.MASKED_SOFTMAX)) {
            return plans;
        }
        List<Plan> out = new ArrayList<>();
        for (Plan p : plans) {
            for (MaskInstance m : MaskInstance.values()) {
                out.add(new Plan(m.condition() + " && (" + p.when() + ")", masked(p, task, m)));
            }
        }
        return out;
    }

    /**
     * The mask kinds a masked_softmax kernel is instantiated for (the library's OfKind config fixes them, so that its
     * prologue holds only what they need beside the row): none; causal and padding, which only limit a row's keys and
     * share kernels, as each costs its rows one branch; additive. Every {@link MaskKind} is in exactly one.
     */
    enum MaskInstance {
        NONE(MaskKind.NONE),
        LIMIT(MaskKind.CAUSAL, MaskKind.PADDING),
        ADDITIVE(MaskKind.ADDITIVE);

        private final List<MaskKind> kinds;

        MaskInstance(MaskKind... kinds) {
            this.kinds = List.of(kinds);
        }

        List<MaskKind> kinds() {
            return kinds;
        }

        /** What its kernels' names end in: {@code _none}, {@code _limit}, {@code _additive}. */
        String suffix() {
            return "_" + name().toLowerCase(Locale.ROOT);
        }

        /** The library's constant for its kinds, which OfKind takes: MASK_NONE, MASK_LIMIT, MASK_ADDITIVE. */
        String constant() {
            return "MASK_" + name();
        }

        /** The plan condition that selects its kinds. */
        String condition() {
            return kinds.stream().map(k -> "mask_kind == " + k.ordinal())
                    .collect(Collectors.joining(" || ", kinds.size() > 1 ? "(" : "",
                            kinds.size() > 1 ? ")" : ""));
        }
    }

    /**
     * {@code plan}'s launches with the attention arguments, of kernels instantiated for {@code mask}'s kinds, which a
     * plan launches only where the shape's mask_kind is one of them. Every kernel's call names its config first.
     */
    private static List<Launch> masked(Plan plan, Task task, MaskInstance mask) {
        String params = ", const int* __restrict__ lengths, const " + task.dtype().x().cudaType()
                + "* __restrict__ mask, float scale, int heads, int queries, int mask_kind";
        String set = "Attention::set(x, lengths, mask, scale, heads, queries, cols, mask_kind);\n    ";
        return plan.launches().stream().map(l -> {
            Kernel k = l.kernel();
            List<String> args = new ArrayList<>(l.args());
            args.addAll(ATTENTION_ARGS);
            String name = k.name() + mask.suffix();
            String call = callOfKind(k, mask);
            return new Launch(new Kernel(name, k.threads(), k.minBlocks(), k.params() + params, set + call),
                    l.grid(), l.smem(), l.cooperative(), l.cluster(), args);
        }).toList();
    }

    /** {@code k}'s call with its config (the first template argument, a {@code *Cfg}) fixed to {@code mask}'s kinds. */
    private static String callOfKind(Kernel k, MaskInstance mask) {
        String call = k.call().replaceFirst("<(\\w+Cfg)\\b", "<OfKind<$1, " + mask.constant() + ">");
        if (call.equals(k.call())) {
            throw new IllegalStateException("kernel " + k.name() + " names no config first in its call: " + k.call());
        }
        return call;
    }

    /** The header JSON, a plan per line so that it reads like the hand-written seeds. */
    private static String header(Genome g, Task task, List<Plan> plans) {
        Precision dtype = task.dtype();
        StringBuilder out = new StringBuilder("{\n");
        if (!task.op().equals(Operators.SOFTMAX)) {  // softmax's header stays as it was: the default needs no key
            out.append("  \"op\": ").append(quote(task.op().id())).append(",\n");
        }
        boolean gradient = task.op().gradientOf().isPresent();
        boolean loss = LossPlans.renders(task.op());
        out.append("  \"description\": ").append(quote(gradient ? GradientPlans.description(g, dtype)
                : loss ? LossPlans.description(g, dtype, task.op()) : description(g, dtype))).append(",\n");
        out.append("  \"dtype\": ").append(quote(dtype.id())).append(",\n");
        if (!gradient) {  // the backward kernels exchange nothing between blocks
            out.append("  \"workspace\": ").append(quote(loss ? LossPlans.WORKSPACE : workspace(g))).append(",\n");
        }
        out.append("  \"plans\": [\n");
        for (int p = 0; p < plans.size(); p++) {
            Plan plan = plans.get(p);
            out.append("    { \"when\": ").append(quote(plan.when())).append(", \"launches\": [");
            for (int l = 0; l < plan.launches().size(); l++) {
                Launch launch = plan.launches().get(l);
                out.append(l == 0 ? "" : ",").append("\n      { \"kernel\": ").append(quote(launch.kernel().name()))
                        .append(", \"grid\": ").append(quote(launch.grid()))
                        .append(", \"block\": ").append(launch.kernel().threads())
                        .append(launch.smem() == null ? "" : ", \"smem\": " + quote(launch.smem()))
                        .append(launch.cooperative() ? ", \"cooperative\": true" : "")
                        .append(launch.cluster() == null ? "" : ", \"cluster\": " + quote(launch.cluster()))
                        .append(", \"args\": [")
                        .append(String.join(", ", launch.args().stream().map(KernelRenderer::quote).toList()))
                        .append("] }");
            }
            out.append(" ] }").append(p + 1 < plans.size() ? "," : "").append('\n');
        }
        return out.append("  ]\n}").toString();
    }

    private static String quote(String text) {
        try {
            return JSON.writeValueAsString(text);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Bytes of ws: the two-launch split plan's float2 partial per chunk; small for shapes other plans take (the
     * one-launch plans exchange partials through their module's slots).
     */
    public static String workspace(Genome g) {
        return "rows * " + chunks(g.normalized().splitRows()) + " * 8";
    }

    /** One line for people: each regime's design and thresholds in {@code dtype}. */
    public static String description(Genome genome, Precision dtype) {
        Genome g = genome.normalized(dtype);
        Genome.ShortRows s = g.shortRows();
        Genome.BlockRows b = g.blockRows();
        Genome.SplitRows sp = g.splitRows();
        return "builtin genome: in registers, cols <= " + s.maxCols() + " a row per " + s.minLanes() + "-32 lanes, "
                + "cols <= " + b.maxCols() + " a row per block of " + b.minThreads() + "-" + b.maxThreads()
                + " threads; cols >= " + sp.minCols() + " with rows <= " + smsShare(sp.rowsPct())
                + ": rows split over many blocks, " + splitDesign(sp.fused()) + clusterDesign(g.clusterRows(), dtype)
                + "; else a block per row, two reads";
    }

    private static String clusterDesign(Genome.ClusterRows c, Precision dtype) {
        if (!c.enabled()) {
            return "";
        }
        int perVec = Genome.vecElems(4, dtype);
        List<Integer> fitted = c.fittedThreads(dtype);
        String smaller = fitted.isEmpty() ? "" : " (rows a block of " + fitted.stream().map(String::valueOf)
                .collect(Collectors.joining(" or ")) + " threads holds: the smallest such block)";
        return "; " + c.minCols() + " < cols <= " + (long) c.capacity(dtype) * c.maxCluster() + ": a row on chip per "
                + (c.maxCluster() > 1 ? "cluster of up to " + c.maxCluster() + " blocks" : "block") + " of "
                + c.threads() + " threads (" + c.regVecs() * perVec + " floats each in registers, "
                + c.smemVecs() * perVec + " in shared memory" + (c.group() > 0 ? ", exponentials taken " + c.group()
                * perVec + " at a time as they land" : "") + ")" + smaller;
    }

    private static String splitDesign(Genome.Fused f) {
        String two = "chunk stats then merge and normalise";
        if (!f.enabled()) {
            return two;
        }
        String one = "in one launch (" + f.blocksPerSm() + " x " + f.threads() + " threads per SM, partials exchanged in slots)"
                + (f.elems() > 0 ? " chunks of up to " + f.elems() + " floats per thread in registers" : "")
                + (f.elems() > 0 && f.stream() ? ", longer ones" : "") + (f.stream() ? " streamed twice" : "");
        return one + ", else " + two;
    }

    /** {@code sms * pct / 100}, written plainly when pct is a whole multiple of 100. */
    private static String smsShare(int pct) {
        if (pct % 100 == 0) {
            return pct == 100 ? "sms" : "sms * " + pct / 100;
        }
        return "sms * " + pct + " / 100";
    }

    /**
     * The *Cfg structs; a VEC is elements of x per access in {@code task}'s dtype. masked_softmax's register and
     * cluster configs also say whether they skip masked keys (SKIP_MASKED); the other operators' files, whose kernels
     * have no mask, stay as they were.
     */
    private static String configs(Genome g, Task task) {
        Precision dtype = task.dtype();
        boolean masked = task.op().equals(Operators.MASKED_SOFTMAX);
        Genome.ShortRows s = g.shortRows();
        Genome.BlockRows b = g.blockRows();
        StringBuilder out = new StringBuilder();
        out.append(struct("ShortCfg", skips(masked, s.skipMasked(), List.of(
                field("VEC", Genome.vecElems(s.vec(), dtype)), field("EXP", "EXP_" + s.exp()),
                field("LOAD", "LOAD_" + s.load()), field("STORE", "STORE_" + s.store()),
                field("REDUCE", "REDUCE_SHUFFLE"), // a row's group is at most a warp: always shuffles
                flag("ONLINE", s.online())))));
        out.append(struct("BlockCfg", skips(masked, b.skipMasked(), List.of(
                field("VEC", Genome.vecElems(b.vec(), dtype)), field("EXP", "EXP_" + b.exp()),
                field("LOAD", "LOAD_" + b.load()),
                field("STORE", "STORE_" + b.store()), field("REDUCE", "REDUCE_" + b.reduce()),
                flag("ONLINE", b.online())))));
        List<String> split = new ArrayList<>(streaming(g.splitRows().pass(), dtype));
        split.add(flag("REVERSE", g.splitRows().reverse()));
        out.append(struct("SplitCfg", split));
        Genome.Fused f = g.splitRows().fused();
        out.append(struct("FusedCfg", List.of(
                field("VEC", Genome.vecElems(f.vec(), dtype)), field("EXP", "EXP_" + f.exp()),
                field("LOAD", "LOAD_" + f.load()),
                field("STORE", "STORE_" + f.store()), field("REDUCE", "REDUCE_" + f.reduce()))));
        out.append(struct("FusedStreamCfg", streaming(Genome.withThreads(g.splitRows().pass(), f.threads(), dtype),
                dtype)));
        Genome.ClusterRows c = g.clusterRows();
        out.append(struct("ClusterCfg", skips(masked, c.skipMasked(), List.of(field("LOAD", "LOAD_" + c.load()),
                field("STORE", "STORE_" + c.store()), field("GROUP", c.group())))));
        out.append(struct("LoopCfg", streaming(g.loopRows().pass(), dtype)));
        return out.toString();
    }

    /** {@code fields} and, in a masked operator's file, its regime's SKIP_MASKED. */
    private static List<String> skips(boolean masked, boolean skip, List<String> fields) {
        if (!masked) {
            return fields;
        }
        List<String> out = new ArrayList<>(fields);
        out.add(flag("SKIP_MASKED", skip));
        return out;
    }

    static List<String> streaming(Genome.Streaming p, Precision dtype) {
        return List.of(field("THREADS", p.threads()), field("VEC", Genome.vecElems(p.vec(), dtype)),
                field("TILE", p.tile()),
                field("UNROLL", p.unroll()), field("EXP", "EXP_" + p.exp()),
                field("STATS_LOAD", "LOAD_" + p.statsLoad()), field("NORM_LOAD", "LOAD_" + p.normLoad()),
                field("STORE", "STORE_" + p.store()), field("REDUCE", "REDUCE_" + p.reduce()),
                flag("ONLINE", p.online()));
    }

    private static String field(String name, Object value) {
        return "static constexpr int " + name + " = " + value + ";";
    }

    private static String flag(String name, boolean value) {
        return "static constexpr bool " + name + " = " + value + ";";
    }

    static String struct(String name, List<String> fields) {
        StringBuilder out = new StringBuilder("struct ").append(name).append(" {\n");
        fields.forEach(f -> out.append("    ").append(f).append('\n'));
        return out.append("};\n").toString();
    }

    /** {@code genome-library.cu} beside this class, with its operator sections ({@link #library(Operator)}). */
    private static final String SOURCE = Prelude.resource(KernelRenderer.class, "genome-library.cu");

    /** {@code genome-backward.cu}: the backward operators' kernels, after the library ({@link #library(Operator)}). */
    private static final String BACKWARD = Prelude.resource(KernelRenderer.class, "genome-backward.cu");

    private static final String SECTION = "//@ ";

    /**
     * Device code shared by every rendered file of {@code op}, copied into each as it is; the *Cfg structs and
     * kernels after it pick instances. The library is one text for every operator: a line {@code //@ <op id> ...}
     * starts lines only those operators' files get, {@code //@ end} returns to lines every file gets, and marker lines
     * themselves are dropped. The sections are the epilogue and the few lines around it (keeping x for it instead of
     * its exponentials), so a kernel is written once for all operators.
     */
    static String library(Operator op) {
        // Cut afresh for each file: one pass over the library's lines, little beside the file's compile, where a cache
        // would be state shared by every campaign in the process.
        if (op.gradientOf().isPresent()) {
            // A gradient's kernels use the forward library's accesses and reductions, as softmax's file has them.
            return LIBRARY + "\n" + sections(BACKWARD, op.id());
        }
        return sections(SOURCE, op.id());
    }

    /**
     * Whether the genome renders files of {@code op}: an operator the library has sections for (softmax's family,
     * their gradients and cross_entropy's two reductions). Another operator would get a softmax's kernels under its name, which its
     * contract may not take: the agent only tunes its seeds' knobs.
     */
    public static boolean serves(Operator op) {
        String text = op.gradientOf().isPresent() ? BACKWARD : SOURCE;
        for (String line : text.split("\n")) {
            if (line.startsWith(SECTION) && List.of(line.substring(SECTION.length()).strip().split(" +"))
                    .contains(op.id())) {
                return true;
            }
        }
        return false;
    }

    /** {@code text} with the sections for operator {@code id} kept and the others' dropped. */
    static String sections(String text, String id) {
        StringBuilder out = new StringBuilder();
        String section = null;
        for (String line : text.split("(?<=\n)")) {
            if (line.startsWith(SECTION)) {
                String names = line.substring(SECTION.length()).strip();
                if (names.equals("end")) {
                    section = null;
                } else {
                    List<String> ids = List.of(names.split(" +"));
                    ids.forEach(Operators::byId);  // a misspelt operator would silently drop its lines from every file
                    section = ids.contains(id) ? id : "";
                }
            } else if (section == null || section.equals(id)) {
                out.append(line);
            }
        }
        return out.toString();
    }

    /** The softmax library, as every softmax file holds it. */
    static final String LIBRARY = library(Operators.SOFTMAX);
}
