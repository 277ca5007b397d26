package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GenomeTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Genome DEFAULT = DefaultGenomes.float32();

    @Test
    void jsonRoundTrip() throws Exception {
        for (Genome g : AgentPopulation.genomes()) {
            JsonNode json = g.toJson();
            assertEquals(g, Genome.fromJson(json, DEFAULT));
            // and through text, as kevo stores it in the mutant's JSON
            assertEquals(g, Genome.fromJson(JSON.readTree(JSON.writeValueAsString(json)), DEFAULT));
        }
        JsonNode json = DEFAULT.toJson();
        assertEquals(List.of("short", "block", "split", "cluster", "loop"), iterable(json));
        assertEquals("EXP2", json.at("/short/exp").asText());
        assertEquals(256, json.at("/split/pass/threads").asInt());
    }

    private static List<String> iterable(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    @Test
    void missingGenesTakeTheDefaultsAndUnknownOnesAreRejected() {
        ObjectNode partial = JSON.createObjectNode();
        partial.putObject("short").put("vec", 2);
        Genome g = Genome.fromJson(partial, DEFAULT);
        assertEquals(2, g.shortRows().vec());
        assertEquals(DEFAULT.blockRows(), g.blockRows());
        assertEquals(DEFAULT.shortRows().maxCols(), g.shortRows().maxCols());

        ObjectNode unknown = (ObjectNode) DEFAULT.toJson();
        ((ObjectNode) unknown.get("split")).put("magic", 1);
        assertThrows(IllegalArgumentException.class, () -> Genome.fromJson(unknown, DEFAULT));
        for (JsonNode bad : List.of(NullNode.instance, TextNode.valueOf("SIDEWAYS"), IntNode.valueOf(1))) {
            ObjectNode json = (ObjectNode) DEFAULT.toJson();
            ((ObjectNode) json.get("short")).set("exp", bad);
            assertThrows(IllegalArgumentException.class, () -> Genome.fromJson(json, DEFAULT), bad::toString);
        }
        assertThrows(IllegalArgumentException.class, () -> Genome.fromJson(IntNode.valueOf(3), DEFAULT));
    }

    /**
     * {@code block.minBlocks} bounds every block kernel of every operator that has them to that many blocks an SM, or
     * as many as its threads leave room for (2048 threads an SM: 6 at 128 and 256 threads, 4 at 512, 2 at 1024), names
     * it for its bound, and leaves every other kernel as the unbounded genome renders it.
     */
    @ParameterizedTest
    @ValueSource(strings = {"softmax", "masked_softmax", "softmax_backward", "cross_entropy"})
    void theBlockBoundBoundsEveryBlockKernelAndNoOther(String op) {
        Task task = new Task(Operators.byId(op), Precision.FP32);
        Map<String, String> kernels = kernels(KernelRenderer.render(blocksOf128To1024Threads(6), task));
        Map<String, String> others = kernels(KernelRenderer.render(blocksOf128To1024Threads(0), task));
        int blockKernels = 0;
        for (Map.Entry<String, String> k : kernels.entrySet()) {
            Matcher block = BLOCK_KERNEL.matcher(k.getKey());
            if (block.find()) {
                int blocks = Math.min(6, 2048 / Integer.parseInt(block.group(1)));
                assertEquals(block.group(1) + ", " + blocks, k.getValue(), k.getKey());
                assertTrue(k.getKey().contains("_b" + blocks), k.getKey());
                blockKernels++;
            } else {
                assertEquals(others.get(k.getKey()), k.getValue(), k.getKey() + ": not a block kernel");
            }
        }
        assertTrue(blockKernels >= 4, op + ": block kernels of 128 to 1024 threads");
    }

    private static final Pattern BLOCK_KERNEL = Pattern.compile("_block_t(\\d+)_n\\d+");
    private static final Pattern BOUNDS = Pattern.compile("__launch_bounds__\\(([^)]*)\\) (\\w+)\\(");

    /** The default genome with block kernels of 128 to 1024 threads, bounded to {@code minBlocks} blocks an SM. */
    private static Genome blocksOf128To1024Threads(int minBlocks) {
        Genome.BlockRows b = DEFAULT.blockRows();
        return new Genome(DEFAULT.shortRows(), new Genome.BlockRows(b.maxCols(), 128, 1024, b.elems(), b.firstElems(),
                b.vec(), b.online(), b.reduce(), b.exp(), b.load(), b.store(), minBlocks, false), DEFAULT.splitRows(),
                DEFAULT.clusterRows(), DEFAULT.loopRows());
    }

    /** Each kernel's name and its __launch_bounds__ arguments. */
    private static Map<String, String> kernels(String source) {
        return pairs(BOUNDS, 2, 1, source);
    }

    /** For each match of {@code pattern} in {@code source}, its group {@code key} mapped to its group {@code value}. */
    static Map<String, String> pairs(Pattern pattern, int key, int value, String source) {
        Map<String, String> out = new LinkedHashMap<>();
        Matcher m = pattern.matcher(source);
        while (m.find()) {
            out.put(m.group(key), m.group(value));
        }
        return out;
    }

    /**
     * skipMasked is masked_softmax's alone: normalized for it, each regime keeps its own; for every other operator,
     * whose kernels have no mask, it is cleared, so that a mutation of it makes no new genome there.
     */
    @ParameterizedTest
    @ValueSource(strings = {"softmax", "log_softmax", "masked_softmax", "softmax_backward", "cross_entropy"})
    void onlyMaskedSoftmaxKeepsItsRegimesSkipMasked(String op) {
        Task task = new Task(Operators.byId(op), Precision.BF16);
        boolean masked = task.op().equals(Operators.MASKED_SOFTMAX);
        for (int regime = 0; regime < 3; regime++) {
            Genome g = DEFAULT.withSkipMasked(regime == 0, regime == 1, regime == 2).normalized(task);
            assertEquals(List.of(masked && regime == 0, masked && regime == 1, masked && regime == 2),
                    List.of(g.shortRows().skipMasked(), g.blockRows().skipMasked(), g.clusterRows().skipMasked()),
                    op + ", regime " + regime + " skipping");
        }
    }

    /**
     * A masked_softmax genome stored before skipMasked existed, read back as the agent reads a parent, reads every key
     * as the kernels it was judged by did, whatever masked_softmax's default now skips.
     */
    @Test
    void aMaskedGenomeStoredBeforeSkipMaskedReadsEveryKey() {
        Task task = new Task(Operators.MASKED_SOFTMAX, Precision.FP32);
        ObjectNode old = (ObjectNode) DefaultGenomes.of(task).withSkipMasked(true, true, true).toJson();
        for (String regime : List.of("short", "block", "cluster")) {
            ((ObjectNode) old.get(regime)).remove("skipMasked");
        }
        Genome g = BuiltinAgent.genomeOf(new Candidate("old", "", Optional.of(old), null), task.dtype())
                .orElseThrow().normalized(task);
        assertEquals(List.of(false, false, false),
                List.of(g.shortRows().skipMasked(), g.blockRows().skipMasked(), g.clusterRows().skipMasked()));
    }

    /** A genome stored before {@code block.firstElems} existed renders the block kernels it was judged by. */
    @Test
    void aBlockRegimeStoredBeforeFirstElemsKeepsItsOwnElements() {
        ObjectNode old = (ObjectNode) DEFAULT.toJson();
        ObjectNode block = (ObjectNode) old.get("block");
        block.remove("firstElems");
        block.put("elems", 32);
        Genome g = Genome.fromJson(old, DEFAULT);
        assertEquals(32, g.blockRows().firstElems());
        assertEquals(128 * 32, KernelRenderer.blockBuckets(g.blockRows(), Precision.FP32).getFirst().cols(),
                "the narrowest bucket holds 32 a thread");

        block.put("firstElems", 4);
        assertEquals(4, Genome.fromJson(old, DEFAULT).blockRows().firstElems(), "a stored firstElems is kept");
    }

    @Test
    void everyGeneIsInTheTableAndEveryTableEntryIsAGene() {
        List<String> leaves = new ArrayList<>();
        leaves(DEFAULT.toJson(), "", leaves);
        assertEquals(leaves, GenomeSpace.GENES.stream().map(GenomeSpace.Gene::path).toList());
    }

    private static void leaves(JsonNode node, String prefix, List<String> out) {
        if (!node.isObject()) {
            out.add(prefix);
            return;
        }
        node.properties().forEach(e -> leaves(e.getValue(), prefix.isEmpty() ? e.getKey() : prefix + "." + e.getKey(), out));
    }

    /** Any values at all, absurd ones included, normalize into the space the renderer is correct for. */
    @Test
    void normalizationMapsAnyValuesIntoTheSpace() {
        SplittableRandom random = new SplittableRandom(7);
        int[] wild = {Integer.MIN_VALUE, -5, 0, 1, 3, 5, 33, 100, 1000, 1025, 4097, 70000, 1 << 30, Integer.MAX_VALUE};
        for (int i = 0; i < 500; i++) {
            ObjectNode json = (ObjectNode) DEFAULT.toJson();
            for (GenomeSpace.Gene gene : GenomeSpace.GENES) {
                if (GenomeSpace.get(json, gene.path()).isInt()) {
                    GenomeSpace.set(json, gene.path(), IntNode.valueOf(wild[random.nextInt(wild.length)]));
                }
            }
            for (Precision dtype : Precision.SUPPORTED) {
                Genome g = Genome.fromJson(json, DEFAULT).normalized(dtype);
                assertEquals(g, g.normalized(dtype), "idempotent");
                assertInSpace(g, dtype);
                KernelRenderer.plans(g, dtype);  // terminates: bucket ladders always reach maxCols
            }
        }
        for (Precision dtype : Precision.SUPPORTED) {
            AgentPopulation.genomes(dtype).forEach(g -> assertInSpace(g, dtype));
        }
    }

    static void assertInSpace(Genome g, Precision dtype) {
        String at = dtype + " " + g.toJson();
        Genome.ShortRows s = g.shortRows();
        assertTrue(pow2(s.threads()) && s.threads() >= 32 && s.threads() <= 1024, at);
        assertTrue(pow2(s.minLanes()) && s.minLanes() >= 4 && s.minLanes() <= 32, at);
        assertTrue(s.minLanes() >= Genome.vecElems(s.vec(), dtype) - 1, at + ": a lane per peeled element");
        assertTrue(s.vec() == 1 || s.vec() == 2 || s.vec() == 4, at);
        assertTrue(s.maxCols() >= 1 && s.maxCols() <= 32 * Genome.registerElems(s.threads(), s.vec(), dtype), at);
        Genome.BlockRows b = g.blockRows();
        int budget = Genome.registerElems(b.maxThreads(), b.vec(), dtype);
        assertTrue(pow2(b.minThreads()) && pow2(b.maxThreads()) && b.minThreads() >= 32, at);
        assertTrue(b.minThreads() <= b.maxThreads() && b.maxThreads() <= 1024, at);
        assertTrue(pow2(b.elems()) && b.elems() >= Genome.vecElems(b.vec(), dtype) && b.elems() <= budget, at);
        assertTrue(pow2(b.firstElems()) && b.firstElems() >= Genome.vecElems(b.vec(), dtype)
                && b.firstElems() <= b.elems(), at);
        assertTrue(b.maxCols() >= 1 && b.maxCols() <= b.maxThreads() * budget, at);
        for (Genome.Streaming p : List.of(g.splitRows().pass(), g.loopRows().pass())) {
            assertTrue(pow2(p.threads()) && p.threads() >= 64 && p.threads() <= 1024, at);
            assertTrue(p.tile() >= 1 && p.tile() * Genome.vecElems(p.vec(), dtype) * p.unroll()
                    <= Genome.streamElems(p.threads()), at);
            assertTrue(p.unroll() == 1 || p.unroll() == 2 || p.unroll() == 4, at);
        }
        Genome.Fused f = g.splitRows().fused();
        int fusedVec = Genome.vecElems(f.vec(), dtype);
        assertTrue(f.elems() == 0 || (f.elems() >= fusedVec && f.elems() <= Genome.registerElems(f.threads(), f.vec(),
                dtype)), at);
        assertTrue(((long) f.threads() * f.smem() * fusedVec * 4 + Genome.Fused.SMEM_OVERHEAD_PER_BLOCK)
                * f.blocksPerSm() <= Genome.Fused.SMEM_BYTES_PER_SM, at);
        Genome.ClusterRows c = g.clusterRows();
        assertTrue(c.regVecs() * Genome.vecElems(4, dtype) <= Genome.registerElems(c.threads(), 4, dtype), at);
        assertTrue(g.splitRows().minChunk() >= 32 && g.splitRows().blocksPerSm() >= 1, at);
        assertTrue(g.splitRows().rowsPct() >= 0 && g.loopRows().gridCap() >= 0, at);
    }

    private static boolean pow2(int v) {
        return v > 0 && Integer.bitCount(v) == 1;
    }

    @Test
    void changesNameEachDifferingGeneByRegime() {
        Genome wide = DefaultGenomes.named().get("wide");
        assertEquals("", GenomeSpace.changes(DEFAULT, DEFAULT));
        String changes = GenomeSpace.changes(DEFAULT, wide);
        assertTrue(changes.startsWith("short: maxCols 512->1024, minLanes 16->8, growth 2->4"), changes);
        assertTrue(changes.contains("; split: minCols 8192->16384"), changes);
    }

    @Test
    void stepsMoveToNearbyValues() {
        SplittableRandom random = new SplittableRandom(11);
        for (GenomeSpace.Gene gene : GenomeSpace.GENES) {
            JsonNode current = GenomeSpace.get(DEFAULT.toJson(), gene.path());
            for (int i = 0; i < 50; i++) {
                JsonNode next = gene.domain().step(current, random);
                assertTrue(!next.equals(current), gene.path() + " stepped from " + current + " to itself");
                if (gene.domain() instanceof GenomeSpace.Scale || gene.domain() instanceof GenomeSpace.Pow2) {
                    double ratio = next.asDouble() / current.asDouble();
                    assertTrue(ratio >= 0.24 && ratio <= 4.1, gene.path() + " " + current + "->" + next);
                }
            }
        }
    }

    /** Genomes stored before the cluster regime existed load with the default's, as every missing gene does. */
    @Test
    void aGenomeWithoutAClusterRegimeTakesTheDefaults() {
        ObjectNode old = (ObjectNode) DEFAULT.toJson();
        old.remove("cluster");
        assertEquals(DEFAULT.clusterRows(), Genome.fromJson(old, DEFAULT).clusterRows());
    }

    @Test
    void clusterRowsNormalizeOntoWhatTheirKernelsHold() {
        Genome.ClusterRows wild = new Genome.ClusterRows(7, 5, 700, 13, 99, 3, true, Genome.LoadHint.PLAIN,
                Genome.StoreHint.PLAIN, false);
        Genome g = new Genome(DEFAULT.shortRows(), DEFAULT.blockRows(), DEFAULT.splitRows(), wild, DEFAULT.loopRows())
                .normalized();
        Genome.ClusterRows c = g.clusterRows();
        assertEquals(512, c.threads(), "a power of two");
        assertEquals(8, c.regVecs(), "at most 32 floats per thread in registers");
        assertEquals(4, c.maxCluster(), "a power of two, at most 8");
        assertEquals(1024, c.minCols());
        // Two 512-thread blocks per SM: what each may keep in shared memory, with the driver's reserve.
        assertEquals(Genome.Fused.smemVectors(512, 2, 4), c.smemVecs());
        assertTrue((long) c.threads() * c.smemVecs() * 16 * 2 <= Genome.Fused.SMEM_BYTES_PER_SM);
        assertEquals(3, c.group(), "groups smaller than the shared part stay");
        Genome.ClusterRows whole = new Genome.ClusterRows(32768, 8, 1024, 4, 12, 12, false, Genome.LoadHint.PLAIN,
                Genome.StoreHint.PLAIN, false);
        Genome one = new Genome(DEFAULT.shortRows(), DEFAULT.blockRows(), DEFAULT.splitRows(), whole,
                DEFAULT.loopRows()).normalized();
        assertEquals(0, one.clusterRows().group(), "a group of the whole shared part is the single wait, 0");
    }

    /**
     * With fit, a row may take a block of half the threads or fewer, two or more to an SM, each thread keeping as many
     * shared vectors: those blocks must fit the SM as many at a time. A 1024-thread block alone may keep 14 vectors a
     * thread (224 KB); two 512-thread blocks of 14 would not fit.
     */
    @Test
    void fittedSmallerBlocksKeepTheirSharedMemoryWithinTheirShareOfTheSm() {
        for (boolean fit : new boolean[] {false, true}) {
            Genome.ClusterRows most = new Genome.ClusterRows(32768, 8, 1024, 2, 14, 0, fit, Genome.LoadHint.PLAIN,
                    Genome.StoreHint.PLAIN, false);
            Genome.ClusterRows c = new Genome(DEFAULT.shortRows(), DEFAULT.blockRows(), DEFAULT.splitRows(), most,
                    DEFAULT.loopRows()).normalized(Precision.BF16).clusterRows();
            assertEquals(fit, !c.fittedThreads(Precision.BF16).isEmpty());
            for (int threads : c.fittedThreads(Precision.BF16)) {
                long perBlock = (long) threads * c.smemVecs() * 16 + Genome.Fused.SMEM_OVERHEAD_PER_BLOCK;
                assertTrue(perBlock * (1024 / threads) <= Genome.Fused.SMEM_BYTES_PER_SM,
                        threads + " threads of " + c.smemVecs() + " vectors: " + perBlock + " bytes a block");
            }
            if (!fit) {
                assertEquals(14, c.smemVecs(), "without fit the 1024-thread block alone keeps its 14");
            }
        }
    }
}
