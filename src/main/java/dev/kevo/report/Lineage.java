package dev.kevo.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kevo.KevoException;
import dev.kevo.data.MutantRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How a mutant came to be: its ancestry back to the seeds, as text, Graphviz dot, Mermaid or JSON. */
public final class Lineage {
    private final Map<String, MutantRecord> all;
    private final MutantRecord target;

    public Lineage(List<MutantRecord> mutants, String id) {
        this.all = new LinkedHashMap<>();
        mutants.forEach(m -> all.put(m.id(), m));
        this.target = all.get(id);
        if (target == null) {
            throw KevoException.input("no mutant '" + id + "' in this campaign");
        }
    }

    /** The first-parent line from a seed to the target, oldest first. */
    public List<MutantRecord> line() {
        List<MutantRecord> line = new ArrayList<>();
        for (MutantRecord m = target; m != null; m = m.parents().isEmpty() ? null : all.get(m.parents().getFirst())) {
            line.addFirst(m);
        }
        return line;
    }

    /** Every ancestor through every parent, oldest first. */
    public List<MutantRecord> ancestors() {
        Map<String, MutantRecord> seen = new LinkedHashMap<>();
        Deque<MutantRecord> todo = new ArrayDeque<>(List.of(target));
        while (!todo.isEmpty()) {
            MutantRecord m = todo.removeFirst();
            if (seen.putIfAbsent(m.id(), m) == null) {
                m.parents().stream().map(all::get).filter(p -> p != null).forEach(todo::addLast);
            }
        }
        return seen.values().stream().sorted(Comparator.comparingInt(MutantRecord::generation)
                .thenComparing(MutantRecord::id)).toList();
    }

    /** Which model made a step and what it cost, for mutants a model proposed. */
    private static String model(MutantRecord m) {
        return m.model() == null ? "" : String.format(Locale.ROOT, "  [%s, %d+%d tokens, %.4f, %.1f s]",
                m.model().model(), m.model().inputTokens(), m.model().outputTokens(), m.model().cost(),
                m.model().latencyMs() / 1000);
    }

    /**
     * One line per step: generation, agent, how it was made, score and its change, the fraction of the memory floor
     * (beside the score, since a geometric-mean speedup can be carried by one shape), what changed.
     */
    public String text() {
        StringBuilder out = new StringBuilder();
        MutantRecord previous = null;
        int depth = 0;
        for (MutantRecord m : line()) {
            String indent = depth == 0 ? "" : "   ".repeat(depth - 1) + "└─ ";
            String change = previous != null && previous.passed() && m.passed()
                    ? String.format(Locale.ROOT, " (%+.3f)", m.fitness() - previous.fitness()) : "";
            String mate = m.parents().size() > 1 ? "  x " + String.join(", ", m.parents().subList(1, m.parents().size()))
                    : "";
            // A tuning step's summary is its knob moves; saying so tells it from a model's or a genome's step.
            String summary = "tune".equals(m.operator()) ? "knobs " + m.summary() : m.summary();
            out.append(String.format(Locale.ROOT, "%-30s gen %-3d %-8s %-10s %-16s %-10s %s%s%s%n", indent + m.id(),
                    m.generation(), m.agent(), m.operator(), score(m) + change, floor(m), summary, mate, model(m)));
            previous = m;
            depth++;
        }
        return out.toString();
    }

    public String dot() {
        StringBuilder out = new StringBuilder("digraph lineage {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
        for (MutantRecord m : ancestors()) {
            out.append(String.format(Locale.ROOT, "  \"%s\" [label=\"%s\\n%s %s\"%s];%n", m.id(), m.id(), m.agent(),
                    score(m), m.id().equals(target.id()) ? ", style=bold" : ""));
            for (int i = 0; i < m.parents().size(); i++) {
                out.append(String.format("  \"%s\" -> \"%s\" [label=\"%s\"%s];%n", m.parents().get(i), m.id(),
                        m.operator(), i > 0 ? ", style=dashed" : ""));
            }
        }
        return out.append("}\n").toString();
    }

    public String mermaid() {
        StringBuilder out = new StringBuilder("graph TD\n");
        for (MutantRecord m : ancestors()) {
            out.append(String.format(Locale.ROOT, "  %s[\"%s<br/>%s %s\"]%n", node(m.id()), m.id(), m.agent(), score(m)));
            for (int i = 0; i < m.parents().size(); i++) {
                out.append(String.format("  %s %s|%s| %s%n", node(m.parents().get(i)), i > 0 ? "-.->" : "-->",
                        m.operator(), node(m.id())));
            }
        }
        return out.toString();
    }

    public String json() {
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (MutantRecord m : ancestors()) {
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("id", m.id());
            node.put("parents", m.parents());
            node.put("generation", m.generation());
            node.put("island", m.island());
            node.put("agent", m.agent());
            node.put("operator", m.operator());
            node.put("step", StepKind.of(m).label());
            node.put("summary", m.summary());
            node.put("verdict", m.result().verdict().id());
            node.put("score", m.passed() ? m.fitness() : null);
            node.put("floorFraction", m.passed() ? m.result().score().floorFraction() : null);
            if (m.model() != null) {
                node.put("model", m.model());
            }
            nodes.add(node);
        }
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(nodes) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String score(MutantRecord m) {
        return m.passed() ? String.format(Locale.ROOT, "%.3fx", m.fitness()) : m.result().verdict().id();
    }

    /** {@code floor 0.88}: the geometric mean of the shapes' memory-floor fractions, or blank without one. */
    private static String floor(MutantRecord m) {
        Double floor = m.passed() ? m.result().score().floorFraction() : null;
        return floor == null ? "" : String.format(Locale.ROOT, "floor %.2f", floor);
    }

    private static String node(String id) {
        return id.replaceAll("[^A-Za-z0-9_]", "_");
    }
}
