package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ParameterTypes;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import dev.kevo.task.SourcePolicy;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rendered files against the real contract parser, plan resolver and NVRTC (no GPU): every genome the agent
 * can reach, in every dtype, must cover every shape with a plan that its kernels can actually hold.
 */
@NeedsNvrtc
class KernelRendererTest {

    private static final String ARCH = "sm_90";
    private static final int[] SMS = {132, 1};
    private static final Pattern REGISTER_KERNEL = Pattern.compile("softmax_(short_g|block_t)(\\d+)_n(\\d+)(?:_b(\\d+))?");
    private static final Pattern FUSED_KERNEL = Pattern.compile("softmax_fused_e(\\d+)(_s(\\d+))?");

    static List<Shape> shapes() {
        List<Shape> shapes = new ArrayList<>(SuiteFile.load(TestFiles.root().resolve("evaluator/suites/standard.yaml"))
                .shapes());
        Stream.of("1x1", "3x5", "7x1023", "2x4097", "5x129", "1x33", "40x2047", "3x20000", "1x3", "2x7", "9x31",
                        "1x64", "3x65", "1x16385", "131x8192", "133x8192", "200x40000", "1x2147483647",
                        "2147483647x1", "3x600000000", "1000x2000000", "64x33554431", "1x7", "3x9", "5x15", "7x8",
                        "3x16383")
                .map(Shape::parse).forEach(shapes::add);
        return shapes;
    }

    private static Nvrtc nvrtc;

    @BeforeAll
    static void loadNvrtc() {
        nvrtc = Nvrtc.load(Optional.empty());
    }

    private static KernelFile parse(String name, Genome genome) {
        return parse(name, genome, Precision.FP32);
    }

    private static KernelFile parse(String name, Genome genome, Precision dtype) {
        KernelFile file = ContractParser.parse(name, null, KernelRenderer.render(genome, dtype));
        assertEquals(List.of(dtype), file.dtypes(), name + " declares the dtype it was rendered for");
        return file;
    }

    @Test
    void defaultGenomeSendsEachStandardShapeToTheIntendedRegime() {
        KernelFile file = parse("default.cu", DefaultGenomes.float32());
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("32x128", "softmax_short_g32_n1");
        expected.put("1823x781", "softmax_block_t128_n8");
        expected.put("1024x1000", "softmax_block_t128_n8");
        expected.put("256x4096", "softmax_block_t256_n16");
        expected.put("1024x2048", "softmax_block_t128_n16");
        expected.put("4096x4096", "softmax_block_t256_n16");
        expected.put("4096x12288", "softmax_block_t1024_n16");
        expected.put("65536x128", "softmax_short_g32_n1");
        expected.put("64x512", "softmax_short_g32_n4");
        expected.put("32x50257", "softmax_fused_e16");
        expected.put("8x128256", "softmax_fused_e8");
        expected.put("1x1000000", "softmax_fused_e8");
        expected.put("1x10000000", "softmax_fused_e32_s52");
        expected.put("1x20000000", "softmax_fused_stream");
        expected.put("200x60000", "softmax_cluster_t512_r8_s8");
        expected.put("4096x32000", "softmax_cluster_t512_r8_s8");
        expected.put("2048x128256", "softmax_cluster_t512_r8_s8");
        expected.put("512x262144", "softmax_cluster_t512_r8_s8");
        expected.put("256x300000", "softmax_loop");
        expected.put("5x40", "softmax_short_g16_n1");
        expected.put("4096x20000", "softmax_cluster_t512_r8_s8");
        expected.forEach((shape, kernel) -> assertEquals(kernel,
                PlanResolver.resolve(file, Shape.parse(shape), 132).launches().getFirst().kernel(), shape));

        // 1x10^7 on 132 SMs, one cooperative launch: two 512-thread blocks per SM, 37879 elements each, 32 per
        // thread in registers and up to 52 more in 104 KB of shared memory.
        ResolvedPlan longRow = PlanResolver.resolve(file, Shape.parse("1x10000000"), 132);
        assertEquals(1, longRow.launches().size());
        assertTrue(longRow.launches().getFirst().cooperative());
        assertEquals(264, longRow.launches().getFirst().grid());
        assertEquals(104 * 1024, longRow.launches().getFirst().smem());

        // The LM-head logits of Llama 3: a row per cluster of four blocks of 512 threads, 64 KB of shared memory each.
        ResolvedPlan.Launch lmHead = PlanResolver.resolve(file, Shape.parse("2048x128256"), 132).launches().getFirst();
        assertEquals(4, lmHead.cluster());
        assertEquals(2048 * 4, lmHead.grid());
        assertEquals(512, lmHead.block());
        assertEquals(64 * 1024, lmHead.smem());
    }

    /** Elements a thread double up to {@code elems} before threads grow, then threads, then elements again. */
    @Test
    void blockBucketsGrowElementsToElemsThenThreadsThenElements() {
        Genome.BlockRows b = new Genome.BlockRows(65536, 128, 512, 16, 4, 1, false, Genome.Reduce.SHUFFLE,
                Genome.ExpMode.EXP2, Genome.LoadHint.PLAIN, Genome.StoreHint.PLAIN, 0, false);
        assertEquals(List.of(new KernelRenderer.Bucket(128, 4, 512), new KernelRenderer.Bucket(128, 8, 1024),
                        new KernelRenderer.Bucket(128, 16, 2048), new KernelRenderer.Bucket(256, 16, 4096),
                        new KernelRenderer.Bucket(512, 16, 8192), new KernelRenderer.Bucket(512, 32, 16384),
                        new KernelRenderer.Bucket(512, 64, 32768), new KernelRenderer.Bucket(512, 128, 65536)),
                KernelRenderer.blockBuckets(b, Precision.FP32));
        // In bf16 a 4-word vector is 8 elements: a first bucket of 8 elements a thread is one vector.
        Genome.BlockRows wide = new Genome.BlockRows(4096, 128, 512, 16, 8, 4, false, Genome.Reduce.SHUFFLE,
                Genome.ExpMode.EXP2, Genome.LoadHint.PLAIN, Genome.StoreHint.PLAIN, 0, false);
        assertEquals(List.of(new KernelRenderer.Bucket(128, 1, 1024), new KernelRenderer.Bucket(128, 2, 2048),
                new KernelRenderer.Bucket(256, 2, 4096)), KernelRenderer.blockBuckets(wide, Precision.BF16));
    }

    /**
     * masked_softmax's short, block and cluster configs say whether each regime skips masked keys, as its genome does;
     * softmax's files, whose kernels have no mask, carry no such field.
     */
    @Test
    void maskedConfigsCarryEachRegimesSkipMasked() {
        Genome g = DefaultGenomes.float32().withSkipMasked(true, false, true);
        assertEquals(Map.of("ShortCfg", "true", "BlockCfg", "false", "ClusterCfg", "true"),
                skips(KernelRenderer.render(g, new Task(Operators.MASKED_SOFTMAX, Precision.BF16))));
        assertEquals(Map.of("ShortCfg", "false", "BlockCfg", "true", "ClusterCfg", "false"),
                skips(KernelRenderer.render(g.withSkipMasked(false, true, false),
                        new Task(Operators.MASKED_SOFTMAX, Precision.FP32))));
        assertEquals(Map.of(), skips(KernelRenderer.render(g, Precision.BF16)));
    }

    private static final Pattern SKIPS = Pattern.compile("struct (\\w+Cfg) \\{[^}]*SKIP_MASKED = (\\w+);");

    /** Each config struct's SKIP_MASKED, by the struct's name. */
    private static Map<String, String> skips(String source) {
        return GenomeTest.pairs(SKIPS, 1, 2, source);
    }

    @Test
    void withoutOneLaunchDesignsLongRowsTakeTwoLaunches() {
        Genome d = DefaultGenomes.float32();
        Genome.SplitRows s = d.splitRows();
        Genome twoLaunches = new Genome(d.shortRows(), d.blockRows(), new Genome.SplitRows(s.minCols(), s.rowsPct(),
                s.minChunk(), s.blocksPerSm(), s.reverse(), s.pass(), Genome.Fused.OFF), d.clusterRows(), d.loopRows());
        KernelFile file = parse("two.cu", twoLaunches);
        // 1x10^7 on 132 SMs: 1056 chunks (8 per SM) of 9470 elements, 37 per thread of a 256-thread block.
        ResolvedPlan longRow = PlanResolver.resolve(file, Shape.parse("1x10000000"), 132);
        assertEquals(List.of("softmax_split_stats", "softmax_split_norm"),
                longRow.launches().stream().map(ResolvedPlan.Launch::kernel).toList());
        assertEquals(1056, longRow.launches().getFirst().grid());
        assertEquals(1056L * 8, longRow.workspaceBytes());
    }

    /** Checks the plan for one shape against what its kernels can hold; returns the kernels it launches. */
    static List<String> checkShape(Genome genome, Precision dtype, KernelFile file, Shape shape, int sms) {
        Genome g = genome.normalized(dtype);
        ResolvedPlan plan = PlanResolver.resolve(file, shape, sms);
        String where = dtype + " " + shape + " sms=" + sms + " " + g.toJson();
        List<String> kernels = plan.launches().stream().map(ResolvedPlan.Launch::kernel).toList();
        ResolvedPlan.Launch first = plan.launches().getFirst();
        Matcher m = REGISTER_KERNEL.matcher(first.kernel());
        if (m.matches()) {
            // A register kernel must hold the whole row: group threads * vectors per thread * elements per vector
            // >= cols; and its group has a lane for each peeled head or tail element.
            boolean isShort = m.group(1).startsWith("short");
            int group = Integer.parseInt(m.group(2));
            int vectors = Integer.parseInt(m.group(3));
            int vec = isShort ? g.shortRows().vec() : g.blockRows().vec();
            int perVec = Genome.vecElems(vec, dtype);
            int threads = isShort ? g.shortRows().threads() : group;
            assertEquals(1, plan.launches().size(), where);
            assertEquals(threads, first.block(), where);
            int bound = isShort ? 1 : g.blockRows().blocksFor(group);  // named for its launch bound, if any
            assertEquals(bound > 1 ? Integer.toString(bound) : null, m.group(4), where + ": " + first.kernel());
            assertTrue((long) group * vectors * perVec >= shape.cols(), where + ": " + first.kernel() + " too small");
            assertTrue(group >= perVec - 1, where + ": " + group + " lanes for up to " + (perVec - 1) + " peeled");
            int perThread = vectors * perVec;
            assertTrue(perThread <= Genome.registerElems(threads, vec, dtype),
                    where + ": " + perThread + " floats per thread");
        } else if (first.kernel().startsWith("softmax_cluster")) {
            // A row per cluster: its blocks hold the whole row, the grid is a cluster per row. A smaller block than
            // the regime's (fit) holds its row alone, and is the smallest that does.
            Genome.ClusterRows c = g.clusterRows();
            int threads = first.block();
            List<Integer> fitted = c.fittedThreads(dtype);
            assertEquals(1, plan.launches().size(), where);
            assertTrue(threads == c.threads() || fitted.contains(threads), where + ": block of " + threads);
            if (threads != c.threads()) {
                assertEquals(1, first.cluster(), where + ": a smaller block holds its row alone");
                assertTrue(threads == fitted.getFirst() || c.capacity(threads / 2, dtype) < shape.cols(),
                        where + ": a smaller block holds the row");
            }
            assertTrue(first.cluster() >= 1 && first.cluster() <= Math.max(1, c.maxCluster()), where);
            assertEquals((long) shape.rows() * first.cluster(), first.grid(), where);
            assertTrue((long) first.cluster() * c.capacity(threads, dtype) >= shape.cols(),
                    where + ": cluster too small");
            assertEquals((long) threads * c.smemVecs() * 16, first.smem(), where);
            assertTrue((first.smem() + Genome.Fused.SMEM_OVERHEAD_PER_BLOCK) * (1024 / threads)
                    <= Genome.Fused.SMEM_BYTES_PER_SM, where);
        } else if (first.kernel().startsWith("softmax_fused")) {
            // One launch: the whole grid resident at once, every chunk within what its kernel holds.
            Genome.Fused f = g.splitRows().fused();
            assertEquals(1, plan.launches().size(), where);
            assertEquals(f.threads(), first.block(), where);
            int chunks = (Integer) first.args().get(3);
            assertEquals((long) shape.rows() * chunks, first.grid(), where);
            assertTrue(chunks >= 1 && first.grid() <= (long) f.blocksPerSm() * sms, where + ": grid " + first.grid());
            long chunkLength = (shape.cols() + chunks - 1L) / chunks;
            Matcher r = FUSED_KERNEL.matcher(first.kernel());
            if (r.matches()) {
                int registers = Integer.parseInt(r.group(1));
                int shared = r.group(3) == null ? 0 : Integer.parseInt(r.group(3));
                int perVec = Genome.vecElems(f.vec(), dtype);
                assertTrue(registers <= Genome.registerElems(f.threads(), f.vec(), dtype), where);
                // Aligned vectors are shared out among chunks; the peeled head and tail sit beside them.
                long vectorsPerChunk = (shape.cols() / perVec + chunks - 1L) / chunks;
                assertTrue(vectorsPerChunk * perVec <= (long) f.threads() * (registers + shared),
                        where + ": " + vectorsPerChunk + " vectors in " + first.kernel());
                // Shared memory holds the chunk as floats, whatever x's dtype.
                assertEquals((long) f.threads() * shared * 4, first.smem(), where);
                assertTrue((first.smem() + Genome.Fused.SMEM_OVERHEAD_PER_BLOCK) * f.blocksPerSm()
                        <= Genome.Fused.SMEM_BYTES_PER_SM, where);
            } else {
                assertEquals("softmax_fused_stream", first.kernel(), where);
                assertTrue(chunkLength <= (long) first.block() * Genome.MAX_TERMS_PER_THREAD, where);
            }
        } else if (first.kernel().equals("softmax_split_stats")) {
            assertEquals(kernels, List.of("softmax_split_stats", "softmax_split_norm"), where);
            int chunks = (Integer) first.args().get(3);
            assertTrue(chunks >= 1 && chunks <= shape.cols(), where);
            assertEquals((long) shape.rows() * chunks, first.grid(), where);
            assertEquals(first.grid(), plan.launches().get(1).grid(), where);
            assertEquals(chunks, plan.launches().get(1).args().get(4), where);
            assertTrue(plan.workspaceBytes() >= (long) shape.rows() * chunks * 8, where);
            long chunkLength = (shape.cols() + chunks - 1L) / chunks;
            assertTrue(chunkLength <= (long) first.block() * Genome.MAX_TERMS_PER_THREAD + 4,
                    where + ": " + chunkLength + " elements per chunk");
        } else {
            assertEquals(List.of("softmax_loop"), kernels, where);
            long perThread = (shape.cols() + first.block() - 1L) / first.block();
            assertTrue(perThread <= Genome.MAX_TERMS_PER_THREAD, where + ": " + perThread + " terms per loop thread");
        }
        return kernels;
    }

    /**
     * The dtype in which CI's second pass compiles the named genomes, float32, the default campaign's; the sample of
     * the population below compiles bred kernels in every dtype.
     */
    private static final List<Precision> SAMPLE_DTYPES = List.of(Precision.FP32);

    @Test
    @Exhaustive
    void namedGenomesCoverEveryShapeInEveryDtypeAndCompileInFloat32() {
        namedGenomes(Precision.SUPPORTED, SAMPLE_DTYPES);
    }

    @Test
    @Exhaustive
    void namedGenomesCompileInEveryOtherDtype() {
        List<Precision> others = Precision.SUPPORTED.stream().filter(d -> !SAMPLE_DTYPES.contains(d)).toList();
        namedGenomes(others, others);
    }

    private static void namedGenomes(List<Precision> covered, List<Precision> compiled) {
        for (Precision dtype : covered) {
            for (Map.Entry<String, Genome> named : DefaultGenomes.named(dtype).entrySet()) {
                String name = named.getKey() + "-" + dtype + ".cu";
                KernelFile file = parse(name, named.getValue(), dtype);
                for (Shape shape : shapes()) {
                    for (int sms : SMS) {
                        checkShape(named.getValue(), dtype, file, shape, sms);
                    }
                }
                if (compiled.contains(dtype)) {
                    assertCompiles(name, file);
                }
            }
        }
    }

    @Test
    void everyPlanIsReachableAndTheLastIsTheCatchAll() {
        for (Precision dtype : Precision.SUPPORTED) {
            for (Genome g : AgentPopulation.genomes(dtype)) {
                List<KernelRenderer.Plan> plans = KernelRenderer.plans(g, dtype);
                assertEquals("true", plans.getLast().when());
                assertEquals(List.of("softmax_loop"), plans.getLast().launches().stream()
                        .map(l -> l.kernel().name()).toList());
                List<String> names = plans.stream().flatMap(p -> p.launches().stream()).map(l -> l.kernel().name())
                        .toList();
                assertEquals(names.size(), names.stream().distinct().count(), "one plan per kernel: " + names);
            }
        }
    }

    /** 200 genomes (random, mutated, crossed) per dtype against every shape on both SM counts. */
    @Test
    @Exhaustive
    void populationParsesAndResolvesEveryShapeInEveryDtype() {
        List<Shape> shapes = shapes();
        for (Precision dtype : Precision.SUPPORTED) {
            List<Genome> genomes = AgentPopulation.genomes(dtype);
            assertEquals(200, genomes.size());
            for (int i = 0; i < genomes.size(); i++) {
                KernelFile file = parse("g" + i + "-" + dtype + ".cu", genomes.get(i), dtype);
                assertTrue(file.description().startsWith("builtin genome"), file.description());
                assertEquals(Optional.empty(), SourcePolicy.violation(file.source()));
                assertEquals(Optional.empty(), ParameterTypes.violation(file, dtype));
                assertTrue(file.source().length() < ContractParser.MAX_SOURCE_BYTES / 4,
                        file.source().length() + " chars");
                for (Shape shape : shapes) {
                    for (int sms : SMS) {
                        checkShape(genomes.get(i), dtype, file, shape, sms);
                    }
                }
            }
        }
    }

    /**
     * Every fifth of the 200 float32 genomes and every tenth of each other dtype's through NVRTC: 40 + 3 x 20 files,
     * each distinct kernel among them compiled once (KernelBatch says why that tests as much as compiling each file
     * whole, in about half the time). About 50 s on two cores: CI's second pass runs it.
     */
    @Test
    @Exhaustive
    void populationCompilesInEveryDtype() throws Exception {
        int fp32Stride = 5, otherStride = 10;
        KernelBatch batch = new KernelBatch();
        for (Precision dtype : Precision.SUPPORTED) {
            List<Genome> genomes = AgentPopulation.genomes(dtype);
            for (int i = 0; i < genomes.size(); i += dtype.equals(Precision.FP32) ? fp32Stride : otherStride) {
                String name = "g" + i + "-" + dtype + ".cu";
                batch.add(name, parse(name, genomes.get(i), dtype).source(), genomes.get(i), dtype);
            }
        }
        assertTrue(batch.distinctKernels() < batch.kernels(), batch.distinctKernels() + " of " + batch.kernels());
        batch.compileAll(nvrtc, ARCH);
    }

    /**
     * A fused launch's whole grid must be resident at once: at the most shared memory normalization allows, a
     * block's dynamic and static shared memory (the static read from the cubin this NVRTC made) and the 1 KB the
     * driver keeps per block, times its blocks per SM, fit an SM's 228 KB, with either reduction. Once the
     * shared-memory reduction's array was not reserved (two 512-thread float32 blocks of 14 vectors a thread left one
     * resident on an H100, and every such genome was rejected), and NVRTC 11.8's static arrays of the shuffle
     * reduction left no room for the second block either.
     */
    @Test
    @Exhaustive
    void aFusedBlockFitsItsShareOfTheSmWithEitherReduction() {
        fusedBlocksFit(Precision.FP32, new int[][] {{512, 2}});
    }

    /** The other layout, and bf16, whose kernels load x differently (the chunk is held as floats in either). */
    @Test
    @Exhaustive
    void aFusedBlockFitsItsShareOfTheSmInEveryLayoutAndInBf16() {
        fusedBlocksFit(Precision.FP32, new int[][] {{256, 4}});
        fusedBlocksFit(Precision.BF16, new int[][] {{512, 2}, {256, 4}});
    }

    /** @param layouts threads and blocks per SM */
    private static void fusedBlocksFit(Precision dtype, int[][] layouts) {
        for (Genome.Reduce reduce : Genome.Reduce.values()) {
            for (int[] layout : layouts) {
                long perBlock = fusedBlockBytes(dtype, reduce, layout[0], layout[1]) + 1024;
                assertTrue(perBlock * layout[1] <= Genome.Fused.SMEM_BYTES_PER_SM, dtype + " " + reduce + " "
                        + layout[0] + "x" + layout[1] + ": " + perBlock + " bytes a block");
            }
        }
    }

    /**
     * Shared memory of the fused kernel that holds a 1x10^7 row, dynamic and static, at the most normalization
     * allows.
     */
    private static long fusedBlockBytes(Precision dtype, Genome.Reduce reduce, int threads, int blocksPerSm) {
        Genome d = DefaultGenomes.float32();
        Genome.SplitRows s = d.splitRows();
        Genome.Fused f = s.fused();
        Genome.Fused most = new Genome.Fused(32, 1 << 10, threads, blocksPerSm, f.vec(), f.stream(), reduce, f.exp(),
                f.load(), f.store());
        Genome g = new Genome(d.shortRows(), d.blockRows(), new Genome.SplitRows(s.minCols(), s.rowsPct(),
                s.minChunk(), s.blocksPerSm(), s.reverse(), s.pass(), most), d.clusterRows(), d.loopRows());
        KernelFile file = parse(reduce + ".cu", g, dtype);
        ResolvedPlan.Launch launch = PlanResolver.resolve(file, Shape.parse("1x10000000"), 132).launches().getFirst();
        assertTrue(launch.kernel().matches("softmax_fused_e\\d+_s\\d+"), launch.kernel());
        Compilation c = nvrtc.compile(file.name(), file.source(), Prelude.headers(), ARCH);
        return launch.smem() + staticShared(c.cubin(), launch.kernel());
    }

    /** A kernel's static shared memory: the size of its {@code .nv.shared.<kernel>} section in an ELF64 cubin. */
    static long staticShared(byte[] cubin, String kernel) {
        ByteBuffer elf = ByteBuffer.wrap(cubin).order(ByteOrder.LITTLE_ENDIAN);
        int headers = (int) elf.getLong(0x28);
        int size = elf.getShort(0x3A) & 0xffff;
        int count = elf.getShort(0x3C) & 0xffff;
        int names = (int) elf.getLong(headers + (elf.getShort(0x3E) & 0xffff) * size + 24);
        for (int i = 0; i < count; i++) {
            int header = headers + i * size;
            int start = names + elf.getInt(header);
            int end = start;
            while (cubin[end] != 0) {
                end++;
            }
            if (new String(cubin, start, end - start, StandardCharsets.US_ASCII).equals(".nv.shared." + kernel)) {
                return elf.getLong(header + 32);
            }
        }
        return 0;
    }

    private static void assertCompiles(String name, KernelFile file) {
        Compilation c = nvrtc.compile(name, file.source(), Prelude.headers(), ARCH);
        assertFalse(c.log().contains("warning"), name + ": " + c.log());
        for (String kernel : file.kernelNames()) {
            assertTrue(c.definesKernel(kernel), name + " defines " + kernel);
        }
    }
}
