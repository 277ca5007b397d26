package dev.kevo.agent;

import com.fasterxml.jackson.databind.JsonNode;
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
import dev.kevo.data.Defaults;
import dev.kevo.data.Precision;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * The built-in mutation engine: no model, no network. A child is either a {@link Genome} rendered by
 * {@link KernelRenderer}, correct by construction so that only its speed is in question, or a parent that
 * declares knobs with other values for them ({@link KnobTuner}).
 *
 * <ul>
 *   <li>parent without a genome that declares knobs (a knobbed seed, a model's file): its knobs tuned (a step, or
 *       a crossover with a mate sharing knob names); with fresh genomes on, half the time a fresh genome instead,
 *       where the genome renders the campaign's operator ({@link KernelRenderer#serves}: softmax's family, their
 *       gradients and cross_entropy; another operator's seeds are only tuned);</li>
 *   <li>parent with neither (a hand-written seed, another agent's file): a fresh genome, one of
 *       {@link #namedGenomes()} or, now and then, a random one, unless fresh genomes are off;</li>
 *   <li>with a mate that has a genome (or, sometimes, an inspiration): crossover per regime, sometimes
 *       followed by a one-gene mutation;</li>
 *   <li>otherwise: one to three genes stepped to nearby values.</li>
 * </ul>
 * A child equal to its parent, its mate or a recent failure (for fresh genomes: or an inspiration) is drawn
 * again. Genomes are normalized and rendered for the campaign's operator and dtype ({@link TaskContext#task()}:
 * log_softmax's genomes differ from softmax's in their epilogue and in the register share of their cluster regime,
 * {@link Genome#normalized(Task)}; float32 softmax for a request without a context). All randomness comes from
 * {@link ProposalRequest#random()}, so the same request and random state give the same proposal.
 */
public final class BuiltinAgent implements Agent {

    public static final String NAME = Defaults.BUILTIN_AGENT;
    private static final int ATTEMPTS = 64;
    private static final double INSPIRATION_CROSSOVER = 0.15;
    private static final double MUTATE_AFTER_CROSSOVER = 0.25;
    private static final double RANDOM_FRESH = 0.2;
    /** With fresh genomes on, the share of knobbed parents without a genome that start a genome instead. */
    private static final double FRESH_FOR_KNOBBED = 0.5;

    private final boolean freshGenomes;

    public BuiltinAgent() {
        this(true);
    }

    /** @param freshGenomes false: never start a genome of its own, only tune (and evolve genomes it is given) */
    public BuiltinAgent(boolean freshGenomes) {
        this.freshGenomes = freshGenomes;
    }

    @Override
    public String name() {
        return NAME;
    }

    /** Every draw comes from the request's randomness, and the agent keeps nothing between requests. */
    @Override
    public boolean proposesOffline() {
        return true;
    }

    /**
     * The strongest design we know without measuring: a warp per row (two rows per warp up to 64 columns)
     * with the row in registers and 16-byte accesses up to 512 columns; a block per row in registers up to
     * 16384, with scalar accesses, 8 floats per thread in 128-thread blocks up to 1024 columns and 16 beyond
     * (within 32 registers, two 1024-thread blocks per SM; 16-byte accesses and their peeling take 40). A warp
     * holding 32 floats a lane made rows of 513 to 1024 columns wait on the longest chain of loads and
     * exponentials; a block spreads them over four times the threads (bench/results/short-to-block-h100/). Rows
     * of 8192+ columns with no more rows than SMs split over the whole GPU in one launch, two 512-thread blocks
     * per SM exchanging partials, each chunk in registers (up to 32 floats per thread) and shared memory (52
     * more), which holds a 1x10^7 row on an H100, or, when too long, streamed twice; a block per row reading
     * twice beyond that. (Two 512-thread blocks per SM beat one 1024-thread block on every long-row shape of
     * the standard suite.)
     */
    public static Genome defaultGenome() {
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
     * {@link #defaultGenome()} for float32; for a 16-bit x, the champion of the fifth 10-minute bf16 campaign
     * (bench/results/dtypes-h100/campaign-bf16-10min-5/), the best 16-bit design measured then, with two changes since
     * (below): 16-byte accesses of 8 elements everywhere, rows of up to 1024 columns on 16 lanes or more in 128-thread
     * blocks, blocks of 128 to 512 threads holding 16 elements a thread and then 32 up to 16384 columns, long rows no
     * more than the SMs split over two 512-thread blocks per SM (32 elements a thread in registers, 48 in shared
     * memory), and a row of more than 16384 columns of many held across a cluster of up to 16 blocks of 256 threads, 32
     * elements a thread in registers and 64 in shared memory, its exponentials taken as each two of a thread's shared
     * vectors land (group 2: faster for the forward operators' rows held on chip than taking them after the whole
     * share, bench/results/training-family-h200/ calls 33-34); with {@code fit}, a row that a smaller block holds whole
     * takes one of its own. The changes, each measured on an H200 in softmax, log_softmax and masked_softmax side by
     * side with the genome before it (bench/results/training-family-h200/probes/): the champion split rows while they
     * were up to twice the SMs (no shape of its suite had between one and two rows an SM), and 256 rows of 16384 to
     * 131072 columns ran 0.1-0.25 of the floor faster as a row a block or cluster (rows-pct/), so the split regime
     * takes as many rows as the float default's; and its clusters were of up to 8 blocks of 512 threads, two an SM,
     * whose wave waits on its clusters' exchanges together, as the loss's did (LOSS_SIXTEEN_BIT): blocks of 256
     * threads, four an SM, ran the LM-head rows of 50257 to 151936 columns 0.02-0.11 faster, and up to 16 of them
     * (non-portable, launched where resident) hold 262144 columns, which 8 did not (cluster-threads/). Its two-launch
     * split pass, which serves only rows too long for the one-launch plans and which no campaign has timed, stays the
     * earlier default's. Campaigns that start from it: bench/results/campaign-bf16-h100/.
     */
    public static Genome defaultGenome(Precision dtype) {
        return dtype.x().bytes() == 2 ? SIXTEEN_BIT.normalized(dtype) : defaultGenome();
    }

    /**
     * {@link #defaultGenome(Precision)} for {@code task}'s dtype, with the cluster regime of a gradient operator
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
    public static Genome defaultGenome(Task task) {
        Genome d = defaultGenome(task.dtype());
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

    /** The blocks a gradient operator's default cluster may span: {@link #defaultGenome(Task)} says why. */
    static final int GRADIENT_MAX_CLUSTER = 16;

    /**
     * A gradient operator's default cluster blocks: 512 threads, with which its cluster regime and its shares
     * ({@link #GRADIENT_SMEM_VECS_16}) were measured; the 16-bit forward default's 256-thread blocks would halve
     * what a block holds of its two rows, and no gradient has run with them.
     */
    static final int GRADIENT_THREADS = 512;

    /**
     * log_softmax_backward's default cluster regime's shared-memory vectors with a 16-bit x (y's and dy's together:
     * 96 KiB a 512-thread block, two blocks an SM): {@link #defaultGenome(Task)} says why.
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
    public static Map<String, Genome> namedGenomes() {
        return namedGenomes(Precision.FP32);
    }

    /**
     * {@link #namedGenomes()} for {@code dtype}: its {@link #defaultGenome(Precision) default} first, the others
     * normalized for it. A 16-bit x moves twice the elements per access, so the scalar accesses of
     * {@code register-rows} become pairs of elements.
     */
    public static Map<String, Genome> namedGenomes(Precision dtype) {
        return namedGenomes(dtype, defaultGenome(dtype));
    }

    /** {@link #namedGenomes(Precision)} for {@code task}, whose {@link #defaultGenome(Task) default} comes first. */
    public static Map<String, Genome> namedGenomes(Task task) {
        return namedGenomes(task.dtype(), defaultGenome(task));
    }

    private static Map<String, Genome> namedGenomes(Precision dtype, Genome first) {
        Genome d = defaultGenome();
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

    @Override
    public Proposal propose(ProposalRequest request) {
        RandomGenerator random = request.random();
        Task task = taskOf(request);
        Precision dtype = task.dtype();
        Set<String> avoid = new HashSet<>();
        for (Candidate failure : request.recentFailures()) {
            genomeOf(failure, dtype).ifPresent(g -> avoid.add(key(g)));
        }
        Optional<Genome> parent = genomeOf(request.parent(), dtype);
        if (parent.isEmpty()) {
            Optional<KernelFile> knobbed = KnobTuner.knobbed(request.parent());
            boolean rendered = KernelRenderer.serves(task.op());
            boolean fresh = freshGenomes && rendered;
            if (knobbed.isPresent() && (!fresh || random.nextDouble() >= FRESH_FOR_KNOBBED)) {
                return tune(request, knobbed.get(), random);
            }
            if (!fresh) {
                throw new AgentException("builtin: " + request.parent().id() + " has no knobs to tune and no builtin "
                        + "genome, and " + (rendered ? "fresh_genomes is off"
                        : "the built-in genome does not render " + task.op().id() + " kernels"));
            }
            // A design other islands already hold adds nothing: start elsewhere.
            request.inspirations().forEach(c -> genomeOf(c, dtype).ifPresent(g -> avoid.add(key(g))));
            return fresh(request, task, random, avoid);
        }
        avoid.add(key(parent.get()));
        Optional<Candidate> mate = request.mate().filter(m -> genomeOf(m, dtype).isPresent());
        if (mate.isEmpty() && random.nextDouble() < INSPIRATION_CROSSOVER) {
            List<Candidate> inspirations = request.inspirations().stream()
                    .filter(c -> genomeOf(c, dtype).filter(g -> !g.equals(parent.get())).isPresent()).toList();
            if (!inspirations.isEmpty()) {
                mate = Optional.of(inspirations.get(random.nextInt(inspirations.size())));
            }
        }
        if (mate.isPresent()) {
            return crossover(parent.get(), mate.get(), task, random, avoid);
        }
        return mutate(parent.get(), task, random, avoid);
    }

    /**
     * The campaign's operator and dtype, which children are rendered for; float32 softmax, every genome's task before
     * there were others, for a request without one.
     */
    private static Task taskOf(ProposalRequest request) {
        TaskContext context = request.context();
        return context == null ? Task.softmax(Precision.FP32) : context.task();
    }

    /** A knobbed parent's child: a crossover with a mate (or an inspiration) that shares knob names, else a step. */
    private Proposal tune(ProposalRequest request, KernelFile parent, RandomGenerator random) {
        Set<String> avoid = new HashSet<>();
        avoid.add(parent.source());
        request.recentFailures().forEach(c -> avoid.add(c.source()));
        Optional<Candidate> mate = request.mate().filter(m -> sharesKnobs(parent, m));
        if (mate.isEmpty() && random.nextDouble() < INSPIRATION_CROSSOVER) {
            List<Candidate> inspirations = request.inspirations().stream()
                    .filter(c -> !parent.source().equals(c.source()) && sharesKnobs(parent, c)).toList();
            if (!inspirations.isEmpty()) {
                mate = Optional.of(inspirations.get(random.nextInt(inspirations.size())));
            }
        }
        if (mate.isPresent()) {
            Optional<Proposal> crossed = KnobTuner.crossover(parent, mate.get(),
                    KnobTuner.knobbed(mate.get()).orElseThrow(), random, avoid);
            if (crossed.isPresent()) {
                return crossed.get();
            }
        }
        return KnobTuner.tune(parent, random, avoid);
    }

    private static boolean sharesKnobs(KernelFile parent, Candidate other) {
        return KnobTuner.knobbed(other).filter(f -> f.knobs().names().stream()
                .anyMatch(n -> parent.knobs().get(n).isPresent())).isPresent();
    }

    private Proposal mutate(Genome parent, Task task, RandomGenerator random, Set<String> avoid) {
        Precision dtype = task.dtype();
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            double roll = random.nextDouble();
            Genome child = GenomeSpace.mutate(parent, roll < 0.6 ? 1 : roll < 0.9 ? 2 : 3, random, dtype)
                    .normalized(task);
            if (!avoid.contains(key(child))) {
                return proposal(child, task, "mutate", GenomeSpace.changes(parent, child));
            }
        }
        throw new AgentException("builtin: no mutation of the parent gave a genome not already tried");
    }

    private Proposal crossover(Genome parent, Candidate mateCandidate, Task task, RandomGenerator random,
                               Set<String> avoid) {
        Precision dtype = task.dtype();
        Genome mate = genomeOf(mateCandidate, dtype).orElseThrow();
        avoid.add(key(mate));
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            GenomeSpace.Cross cross = GenomeSpace.crossover(parent, mate, random, dtype);
            Genome child = cross.child().normalized(task);
            String summary = "crossover with " + mateCandidate.id() + ": " + origins(cross.origins());
            if (avoid.contains(key(child)) || random.nextDouble() < MUTATE_AFTER_CROSSOVER) {
                Genome mutated = GenomeSpace.mutate(child, 1, random, dtype).normalized(task);
                summary += "; then " + GenomeSpace.changes(child, mutated);
                child = mutated;
            }
            if (!avoid.contains(key(child))) {
                return proposal(child, task, "crossover", summary);
            }
        }
        throw new AgentException("builtin: no crossover with " + mateCandidate.id() + " gave a new genome");
    }

    private static String origins(Map<String, GenomeSpace.Origin> origins) {
        List<String> fromMate = new ArrayList<>();
        origins.forEach((regime, origin) -> {
            if (origin == GenomeSpace.Origin.MATE) {
                fromMate.add(regime);
            } else if (origin == GenomeSpace.Origin.MIXED) {
                fromMate.add(regime + " (mixed)");
            }
        });
        return fromMate.isEmpty() ? "all regimes from the parent" : String.join(", ", fromMate) + " from the mate";
    }

    private Proposal fresh(ProposalRequest request, Task task, RandomGenerator random, Set<String> avoid) {
        Precision dtype = task.dtype();
        String why = " (" + request.parent().id() + " has no builtin genome)";
        Map<String, Genome> named = namedGenomes(task);
        List<String> names = new ArrayList<>(named.keySet());
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            double roll = random.nextDouble();
            if (roll < RANDOM_FRESH) {
                Genome child = GenomeSpace.random(random, defaultGenome(task), dtype).normalized(task);
                if (!avoid.contains(key(child))) {
                    return proposal(child, task, "fresh", "fresh: random genome" + why);
                }
            } else {
                // Half of the named draws take the default, the rest share the others.
                String name = roll < RANDOM_FRESH + (1 - RANDOM_FRESH) / 2 ? names.getFirst()
                        : names.get(1 + random.nextInt(names.size() - 1));
                Genome child = named.get(name).normalized(task);
                if (!avoid.contains(key(child))) {
                    return proposal(child, task, "fresh", "fresh: named genome '" + name + "'" + why);
                }
            }
        }
        throw new AgentException("builtin: every fresh genome drawn for " + request.parent().id() + " failed recently");
    }

    private static Proposal proposal(Genome child, Task task, String operator, String summary) {
        return new Proposal(KernelRenderer.render(child, task), Optional.of(child.toJson()), operator, summary,
                Optional.empty());
    }

    /**
     * A candidate's genome as this agent reads it, normalized for {@code dtype}; empty when it has none or not one of
     * ours.
     */
    static Optional<Genome> genomeOf(Candidate candidate, Precision dtype) {
        if (candidate.genome().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Genome.fromJson(candidate.genome().get(), defaultGenome()).normalized(dtype));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The identity of a genome normalized for the request's dtype (every genome this agent compares is). */
    private static String key(Genome genome) {
        JsonNode json = genome.toJson();
        return json.toString();
    }
}
