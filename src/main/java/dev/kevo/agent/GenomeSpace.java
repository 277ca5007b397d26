package dev.kevo.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.kevo.data.Precision;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * The genes the built-in agent varies: each a path into the genome's JSON and the values it may take, with
 * what a small step from a value means. Random genomes, mutation and crossover all go through this table
 * and end in {@link Genome#normalized(Precision)} for the campaign's dtype, so whatever they produce renders to a
 * correct file in it.
 */
public final class GenomeSpace {

    private GenomeSpace() {
    }

    /** The values of one gene. */
    public sealed interface Domain {
        JsonNode random(RandomGenerator random);

        /** A nearby value, different from {@code current} unless the domain has one value. */
        JsonNode step(JsonNode current, RandomGenerator random);
    }

    /** Unordered values (enums, flags): a step picks another one. */
    public record Choice(List<JsonNode> values) implements Domain {
        public Choice {
            values = List.copyOf(values);
        }

        static Choice of(Class<? extends Enum<?>> type) {
            return new Choice(Arrays.stream(type.getEnumConstants()).map(e -> (JsonNode) TextNode.valueOf(e.name()))
                    .toList());
        }

        static Choice flag() {
            return new Choice(List.of(BooleanNode.FALSE, BooleanNode.TRUE));
        }

        @Override
        public JsonNode random(RandomGenerator random) {
            return values.get(random.nextInt(values.size()));
        }

        @Override
        public JsonNode step(JsonNode current, RandomGenerator random) {
            List<JsonNode> others = values.stream().filter(v -> !v.equals(current)).toList();
            return others.isEmpty() ? current : others.get(random.nextInt(others.size()));
        }
    }

    /** Ordered values (vector widths, unroll factors, grid caps): a step moves to a neighbour, now and then two. */
    public record Ordered(List<Integer> values) implements Domain {
        public Ordered {
            values = List.copyOf(values);
        }

        static Ordered of(Integer... values) {
            return new Ordered(List.of(values));
        }

        @Override
        public JsonNode random(RandomGenerator random) {
            return IntNode.valueOf(values.get(random.nextInt(values.size())));
        }

        @Override
        public JsonNode step(JsonNode current, RandomGenerator random) {
            int at = nearest(current.asInt());
            int distance = random.nextInt(4) == 0 ? 2 : 1;
            int to = at + (random.nextBoolean() ? distance : -distance);
            if (to < 0 || to >= values.size()) {
                to = at - (to - at);  // bounce off the end
            }
            to = Math.max(0, Math.min(values.size() - 1, to));
            if (to == at && values.size() > 1) {
                to = at == 0 ? 1 : at - 1;
            }
            return IntNode.valueOf(values.get(to));
        }

        private int nearest(int value) {
            int best = 0;
            for (int i = 1; i < values.size(); i++) {
                if (Math.abs(values.get(i) - value) < Math.abs(values.get(best) - value)) {
                    best = i;
                }
            }
            return best;
        }
    }

    /**
     * Positive integers on a log scale (thresholds, chunk sizes): a step multiplies by 2^(1/2) or 2, up or
     * down, rounded to a multiple of {@code quantum}; random values are log-uniform.
     */
    public record Scale(int min, int max, int quantum) implements Domain {
        @Override
        public JsonNode random(RandomGenerator random) {
            double log = Math.log(min) + random.nextDouble() * (Math.log(max) - Math.log(min));
            return IntNode.valueOf(round(Math.exp(log)));
        }

        @Override
        public JsonNode step(JsonNode current, RandomGenerator random) {
            int value = current.asInt();
            int halves = (random.nextBoolean() ? 1 : 2) * (random.nextBoolean() ? 1 : -1);
            int next = round(value * Math.pow(2, halves / 2.0));
            if (next == value) {  // rounding or a bound ate the step: move one quantum instead
                next = clamp(value + Integer.signum(halves) * quantum);
            }
            if (next == value) {
                next = clamp(value - Integer.signum(halves) * quantum);
            }
            return IntNode.valueOf(next);
        }

        private int round(double value) {
            return clamp((int) Math.round(value / quantum) * quantum);
        }

        private int clamp(int value) {
            return Math.max(min, Math.min(max, value));
        }
    }

    /** Powers of two (thread counts, lanes, elements): a step doubles or halves, now and then twice. */
    public record Pow2(int min, int max) implements Domain {
        @Override
        public JsonNode random(RandomGenerator random) {
            int lo = Integer.numberOfTrailingZeros(min);
            int hi = Integer.numberOfTrailingZeros(max);
            return IntNode.valueOf(1 << (lo + random.nextInt(hi - lo + 1)));
        }

        @Override
        public JsonNode step(JsonNode current, RandomGenerator random) {
            int value = Math.max(min, Math.min(max, Integer.highestOneBit(Math.max(1, current.asInt()))));
            int shift = random.nextInt(4) == 0 ? 2 : 1;
            long next = random.nextBoolean() ? (long) value << shift : value >> shift;
            if (next > max || next < min) {
                next = next > max ? value >> shift : (long) value << shift;
            }
            return IntNode.valueOf((int) Math.max(min, Math.min(max, next)));
        }
    }

    /** Small integers (tiles): a step adds or subtracts one, now and then two. */
    public record Linear(int min, int max) implements Domain {
        @Override
        public JsonNode random(RandomGenerator random) {
            return IntNode.valueOf(min + random.nextInt(max - min + 1));
        }

        @Override
        public JsonNode step(JsonNode current, RandomGenerator random) {
            int value = current.asInt();
            int delta = (random.nextInt(4) == 0 ? 2 : 1) * (random.nextBoolean() ? 1 : -1);
            int next = value + delta;
            if (next < min || next > max) {
                next = value - delta;
            }
            return IntNode.valueOf(Math.max(min, Math.min(max, next)));
        }
    }

    /** One gene: {@code path} is dotted, its first part the regime ({@code short.vec}, {@code split.pass.tile}). */
    public record Gene(String path, Domain domain) {
        public String regime() {
            return path.substring(0, path.indexOf('.'));
        }

        /** The path within its regime, e.g. {@code pass.tile}. */
        public String name() {
            return path.substring(path.indexOf('.') + 1);
        }
    }

    /** The regimes, in the genome's order: crossover takes each whole from one parent or mixes it. */
    public static final List<String> REGIMES = List.of("short", "block", "split", "cluster", "loop");

    private static final Ordered VEC = Ordered.of(1, 2, 4);
    private static final Ordered GRID_CAP = Ordered.of(0, 1, 2, 4, 8, 16, 32);

    /** Every gene of the genome, in its JSON order. */
    public static final List<Gene> GENES = genes();

    private static List<Gene> genes() {
        List<Gene> genes = new ArrayList<>(List.of(
                new Gene("short.maxCols", new Scale(32, 1024, 32)),
                new Gene("short.minLanes", new Pow2(4, 32)),
                new Gene("short.growth", Ordered.of(2, 4)),
                new Gene("short.threads", new Pow2(64, 1024)),
                new Gene("short.vec", VEC),
                new Gene("short.online", Choice.flag()),
                new Gene("short.exp", Choice.of(Genome.ExpMode.class)),
                new Gene("short.load", Choice.of(Genome.LoadHint.class)),
                new Gene("short.store", Choice.of(Genome.StoreHint.class)),
                new Gene("short.skipMasked", Choice.flag()),
                new Gene("block.maxCols", new Scale(1024, 32768, 256)),
                new Gene("block.minThreads", new Pow2(32, 1024)),
                new Gene("block.maxThreads", new Pow2(128, 1024)),
                new Gene("block.elems", new Pow2(1, 32)),
                new Gene("block.firstElems", new Pow2(1, 32)),
                new Gene("block.vec", VEC),
                new Gene("block.online", Choice.flag()),
                new Gene("block.reduce", Choice.of(Genome.Reduce.class)),
                new Gene("block.exp", Choice.of(Genome.ExpMode.class)),
                new Gene("block.load", Choice.of(Genome.LoadHint.class)),
                new Gene("block.store", Choice.of(Genome.StoreHint.class)),
                new Gene("block.minBlocks", Ordered.of(0, 2, 3, 4, 5, 6, 8)),
                new Gene("block.skipMasked", Choice.flag()),
                new Gene("split.minCols", new Scale(1024, 1 << 20, 256)),
                new Gene("split.rowsPct", new Scale(25, 3200, 25)),
                new Gene("split.minChunk", new Scale(512, 1 << 18, 256)),
                new Gene("split.blocksPerSm", new Scale(1, 64, 1)),
                new Gene("split.reverse", Choice.flag())));
        genes.addAll(streaming("split.pass."));
        genes.addAll(List.of(
                new Gene("split.fused.elems", Ordered.of(0, 4, 8, 16, 32)),
                new Gene("split.fused.smem", Ordered.of(0, 2, 4, 8, 12, 14)),
                new Gene("split.fused.threads", new Pow2(128, 1024)),
                new Gene("split.fused.blocksPerSm", new Pow2(1, 8)),
                new Gene("split.fused.vec", VEC),
                new Gene("split.fused.stream", Choice.flag()),
                new Gene("split.fused.reduce", Choice.of(Genome.Reduce.class)),
                new Gene("split.fused.exp", Choice.of(Genome.ExpMode.class)),
                new Gene("split.fused.load", Choice.of(Genome.LoadHint.class)),
                new Gene("split.fused.store", Choice.of(Genome.StoreHint.class))));
        genes.addAll(List.of(
                new Gene("cluster.minCols", new Scale(4096, 1 << 17, 256)),
                new Gene("cluster.maxCluster", Ordered.of(0, 1, 2, 4, 8, 16)),
                new Gene("cluster.threads", new Pow2(128, 1024)),
                new Gene("cluster.regVecs", new Pow2(2, 8)),
                new Gene("cluster.smemVecs", Ordered.of(0, 2, 4, 8, 12, 14)),
                new Gene("cluster.group", Ordered.of(0, 2, 4)),
                new Gene("cluster.fit", Choice.flag()),
                new Gene("cluster.load", Choice.of(Genome.LoadHint.class)),
                new Gene("cluster.store", Choice.of(Genome.StoreHint.class)),
                new Gene("cluster.skipMasked", Choice.flag())));
        genes.add(new Gene("loop.gridCap", GRID_CAP));
        genes.addAll(streaming("loop.pass."));
        return List.copyOf(genes);
    }

    private static List<Gene> streaming(String prefix) {
        return List.of(
                new Gene(prefix + "threads", new Pow2(64, 1024)),
                new Gene(prefix + "vec", VEC),
                new Gene(prefix + "tile", new Linear(1, 8)),
                new Gene(prefix + "unroll", Ordered.of(1, 2, 4)),
                new Gene(prefix + "online", Choice.flag()),
                new Gene(prefix + "reduce", Choice.of(Genome.Reduce.class)),
                new Gene(prefix + "exp", Choice.of(Genome.ExpMode.class)),
                new Gene(prefix + "statsLoad", Choice.of(Genome.LoadHint.class)),
                new Gene(prefix + "normLoad", Choice.of(Genome.LoadHint.class)),
                new Gene(prefix + "store", Choice.of(Genome.StoreHint.class)));
    }

    /** A genome drawn gene by gene from the whole space, normalized for {@code dtype}. */
    public static Genome random(RandomGenerator random, Genome template, Precision dtype) {
        ObjectNode json = (ObjectNode) template.toJson();
        for (Gene gene : GENES) {
            set(json, gene.path(), gene.domain().random(random));
        }
        return Genome.fromJson(json, template).normalized(dtype);
    }

    /** {@code genes} distinct genes, each stepped to a nearby value; the result is normalized for {@code dtype}. */
    public static Genome mutate(Genome parent, int genes, RandomGenerator random, Precision dtype) {
        ObjectNode json = (ObjectNode) parent.toJson();
        List<Gene> pool = new ArrayList<>(GENES);
        for (int i = 0; i < genes && !pool.isEmpty(); i++) {
            Gene gene = pool.remove(random.nextInt(pool.size()));
            set(json, gene.path(), gene.domain().step(get(json, gene.path()), random));
        }
        return Genome.fromJson(json, parent).normalized(dtype);
    }

    /** Where a crossover child's regime came from. */
    public enum Origin { PARENT, MATE, MIXED }

    /** A crossover child and, per regime, where it came from. */
    public record Cross(Genome child, Map<String, Origin> origins) {
    }

    /**
     * Per regime: the parent's, the mate's (each 40%), or gene by gene from either (20%). Regimes are
     * independent designs, so whole ones carry over intact. The child is normalized for {@code dtype}.
     */
    public static Cross crossover(Genome parent, Genome mate, RandomGenerator random, Precision dtype) {
        ObjectNode child = (ObjectNode) parent.toJson();
        ObjectNode other = (ObjectNode) mate.toJson();
        Map<String, Origin> origins = new LinkedHashMap<>();
        for (String regime : REGIMES) {
            double roll = random.nextDouble();
            Origin origin = roll < 0.4 ? Origin.PARENT : roll < 0.8 ? Origin.MATE : Origin.MIXED;
            origins.put(regime, origin);
            for (Gene gene : GENES) {
                if (gene.regime().equals(regime)
                        && (origin == Origin.MATE || (origin == Origin.MIXED && random.nextBoolean()))) {
                    set(child, gene.path(), get(other, gene.path()));
                }
            }
        }
        return new Cross(Genome.fromJson(child, parent).normalized(dtype), origins);
    }

    /**
     * What differs between two genomes, grouped by regime: {@code short: vec 2->4, online false->true; split:
     * minChunk 4096->8192}. Empty when they are equal.
     */
    public static String changes(Genome from, Genome to) {
        JsonNode a = from.toJson();
        JsonNode b = to.toJson();
        Map<String, List<String>> byRegime = new LinkedHashMap<>();
        for (Gene gene : GENES) {
            JsonNode before = get(a, gene.path());
            JsonNode after = get(b, gene.path());
            if (!before.equals(after)) {
                byRegime.computeIfAbsent(gene.regime(), r -> new ArrayList<>())
                        .add(gene.name() + " " + before.asText() + "->" + after.asText());
            }
        }
        List<String> parts = new ArrayList<>();
        byRegime.forEach((regime, list) -> parts.add(regime + ": " + String.join(", ", list)));
        return String.join("; ", parts);
    }

    static JsonNode get(JsonNode root, String path) {
        JsonNode node = root;
        for (String key : path.split("\\.")) {
            node = node.path(key);
        }
        if (node.isMissingNode()) {
            throw new IllegalStateException("genome has no gene " + path);
        }
        return node;
    }

    static void set(ObjectNode root, String path, JsonNode value) {
        String[] keys = path.split("\\.");
        ObjectNode node = root;
        for (int i = 0; i < keys.length - 1; i++) {
            node = (ObjectNode) node.get(keys[i]);
        }
        node.set(keys[keys.length - 1], value);
    }
}
