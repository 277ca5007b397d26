package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.Precision;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a rendered file's accesses come to in each dtype, read back from the file itself (no NVRTC): a genome's
 * {@code vec} is bytes of x per access, so a 16-bit file moves twice the elements a float32 file does in the same
 * access, and its plans count capacities in those elements.
 */
class RenderedWidthTest {

    private static final Pattern STRUCT = Pattern.compile("struct (\\w+Cfg) \\{\\n((?: {4}[^\\n]*\\n)*)};\\n");
    private static final Pattern VEC = Pattern.compile("static constexpr int VEC = (\\d+);");
    private static final Pattern KERNEL =
            Pattern.compile("__global__ void __launch_bounds__\\([^)]*\\) (\\w+)\\(([^)]*)\\)");

    /** The VEC of each *Cfg struct that has one, by struct name. */
    private static Map<String, Integer> vecs(String source) {
        Map<String, Integer> out = new LinkedHashMap<>();
        Matcher m = STRUCT.matcher(source);
        while (m.find()) {
            Matcher v = VEC.matcher(m.group(2));
            if (v.find()) {
                out.put(m.group(1), Integer.parseInt(v.group(1)));
            }
        }
        return out;
    }

    /** The gene that sets each struct's access width: 4-byte words of x per access. */
    private static Map<String, Integer> words(Genome g) {
        return Map.of("ShortCfg", g.shortRows().vec(), "BlockCfg", g.blockRows().vec(),
                "SplitCfg", g.splitRows().pass().vec(), "FusedCfg", g.splitRows().fused().vec(),
                "FusedStreamCfg", g.splitRows().pass().vec(), "LoopCfg", g.loopRows().pass().vec());
    }

    /**
     * Every struct's vector is as many bytes of x as its gene says, in every dtype: a 16-byte access is 4 floats or
     * 8 16-bit elements. A 16-bit file that read 16-byte genes as 4 elements (8 bytes) fails here.
     */
    @Test
    void everyAccessMovesTheBytesItsGeneSays() {
        for (Precision dtype : Precision.SUPPORTED) {
            int sixteenBytes = 0;
            for (Genome g : AgentPopulation.genomes(dtype)) {
                String source = KernelRenderer.render(g, dtype);
                Map<String, Integer> vecs = vecs(source);
                assertEquals(words(g).keySet(), vecs.keySet(), "every streaming and register struct has a VEC");
                for (Map.Entry<String, Integer> e : words(g).entrySet()) {
                    int bytes = vecs.get(e.getKey()) * dtype.x().bytes();
                    assertEquals(e.getValue() * 4, bytes, dtype + " " + e.getKey() + " of " + g.toJson());
                    sixteenBytes += bytes == 16 ? 1 : 0;
                }
            }
            assertTrue(sixteenBytes > 100, dtype + ": 16-byte accesses in the population: " + sixteenBytes);
        }
    }

    /** Kernels take x and y in the dtype's element types, which differ in bf16-fp32. */
    @Test
    void kernelsTakeTheDtypesElementTypes() {
        for (Precision dtype : Precision.SUPPORTED) {
            String source = KernelRenderer.render(DefaultGenomes.float32(), dtype);
            Matcher m = KERNEL.matcher(source);
            int kernels = 0;
            while (m.find()) {
                kernels++;
                String params = m.group(2);
                assertTrue(params.startsWith("const " + dtype.x().cudaType() + "* __restrict__ x, "),
                        dtype + " " + m.group(1) + "(" + params + ")");
                assertTrue(m.group(1).equals("softmax_split_stats")
                                || params.contains(", " + dtype.y().cudaType() + "* __restrict__ y, "),
                        dtype + " " + m.group(1) + "(" + params + ")");
            }
            assertTrue(kernels > 10, dtype + ": " + kernels + " kernels");
        }
    }

    /**
     * The default genome's plans hold twice the elements per vector in 16 bits: the same 500-column row takes half
     * the vectors per lane, and a cluster block holds 16-byte vectors of 8 elements (4 in registers, within 32
     * floats a thread, the rest in shared memory, as x).
     */
    @Test
    void sixteenBitPlansCountElementsOfSixteenByteVectors() {
        Map<Precision, String> shortKernel = Map.of(Precision.FP32, "softmax_short_g32_n4",
                Precision.BF16, "softmax_short_g32_n2", Precision.BF16_FP32, "softmax_short_g32_n2");
        for (Map.Entry<Precision, String> e : shortKernel.entrySet()) {
            assertEquals(e.getValue(), resolve(e.getKey(), "1024x500").launches().getFirst().kernel(),
                    e.getKey().toString());
        }
        ResolvedPlan.Launch lmHead = resolve(Precision.FP16, "2048x128256").launches().getFirst();
        assertEquals("softmax_cluster_t512_r4_s8", lmHead.kernel());
        assertEquals((128256 + 512 * 8 * 12 - 1) / (512 * 8 * 12), lmHead.cluster());
        assertEquals(512L * 8 * 16, lmHead.smem(), "shared memory holds x's 16-byte vectors as they are");
    }

    /**
     * Long rows of many held by 1024-thread blocks (131072 16-bit columns each): with {@code fit}, a row that half the
     * block holds takes a 512-thread block of its own, so that two rows share an SM, where one row of 50257 columns
     * would fill a third of the large block and hold the SM alone. Past one block, clusters of large blocks.
     */
    @Test
    void aRowThatASmallerBlockHoldsWholeTakesTheSmallestSuchBlockWithoutACluster() {
        ResolvedPlan.Launch gpt2 = resolveLarge("4096x50257").launches().getFirst();
        assertEquals(List.of("softmax_cluster_t512_r4_s12", 4096, 512, 1), List.of(gpt2.kernel(), gpt2.grid(),
                gpt2.block(), gpt2.cluster()));
        assertEquals(512 * 12 * 16, gpt2.smem());
        ResolvedPlan.Launch llama3 = resolveLarge("2048x128256").launches().getFirst();
        assertEquals(List.of("softmax_cluster_t1024_r4_s12", 2048, 1024, 1), List.of(llama3.kernel(), llama3.grid(),
                llama3.block(), llama3.cluster()));
        ResolvedPlan.Launch gemma = resolveLarge("512x262144").launches().getFirst();
        assertEquals(List.of("softmax_cluster_t1024_r4_s12", 1024, 2), List.of(gemma.kernel(), gemma.grid(),
                gemma.cluster()));
        assertEquals(List.of(), largeBlocks(false).clusterRows().fittedThreads(Precision.BF16),
                "without fit, every row of the regime takes the large blocks");
    }

    /**
     * However late a genome's cluster regime asks to start, a row of many past what the block regime holds is held
     * by a cluster, in every dtype: the loop regime would read it twice. A genome that left rows of 16384-131072
     * columns to the loop fails here.
     */
    @Test
    void aRowOfManyThatNoBlockHoldsIsHeldByAClusterNotReadTwice() {
        for (Precision dtype : Precision.SUPPORTED) {
            Genome d = DefaultGenomes.of(dtype);
            Genome.ClusterRows c = d.clusterRows();
            Genome late = new Genome(d.shortRows(), d.blockRows(), d.splitRows(), new Genome.ClusterRows(1 << 17,
                    c.maxCluster(), c.threads(), c.regVecs(), c.smemVecs(), c.group(), c.fit(), c.load(), c.store(),
                    false), d.loopRows()).normalized(dtype);
            KernelFile file = ContractParser.parse("late.cu", null, KernelRenderer.render(late, dtype));
            int past = late.blockRows().maxCols() + 1;
            for (String shape : List.of("4096x" + past, "4096x50257", "4096x65536", "2048x128256")) {
                String kernel = PlanResolver.resolve(file, Shape.parse(shape), 132).launches().getFirst().kernel();
                assertTrue(kernel.startsWith("softmax_cluster_"), dtype + " " + shape + ": " + kernel);
            }
        }
    }

    /** The 16-bit default with its long rows of many in 1024-thread blocks, 4 vectors in registers and 12 shared. */
    private static Genome largeBlocks(boolean fit) {
        Genome d = DefaultGenomes.of(Precision.BF16);
        return new Genome(d.shortRows(), d.blockRows(), d.splitRows(), new Genome.ClusterRows(32768, 8, 1024, 4, 12,
                0, fit, Genome.LoadHint.PLAIN, Genome.StoreHint.PLAIN, false), d.loopRows()).normalized(Precision.BF16);
    }

    private static ResolvedPlan resolveLarge(String shape) {
        KernelFile file = ContractParser.parse("large.cu", null,
                KernelRenderer.render(largeBlocks(true), Precision.BF16));
        return PlanResolver.resolve(file, Shape.parse(shape), 132);
    }

    private static ResolvedPlan resolve(Precision dtype, String shape) {
        KernelFile file = ContractParser.parse("default.cu", null,
                KernelRenderer.render(DefaultGenomes.float32(), dtype));
        return PlanResolver.resolve(file, Shape.parse(shape), 132);
    }
}
