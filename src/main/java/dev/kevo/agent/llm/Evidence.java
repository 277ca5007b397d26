package dev.kevo.agent.llm;

import dev.kevo.agent.Candidate;
import dev.kevo.agent.TaskContext;
import dev.kevo.data.Precision;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Profile;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.KernelResources;
import dev.kevo.data.ShapeResult;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Knob;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What the evaluator measured, written for a model: the device, and per kernel its per-shape times, memory-floor
 * fractions, verdicts, registers and spills, and for a rejected kernel the compiler's log or the first bad
 * element. Models improve on evidence, not on code alone.
 */
final class Evidence {
    /** Compiler logs and failure details are cut to this: the first errors are the ones that matter. */
    static final int LOG_CHARS = 4000;
    private static final int LOG_LINES = 40;

    private Evidence() {
    }

    /** The GPU, and the copy bandwidth measured beside the kernels (what the memory floor means in bytes/s). */
    static String device(TaskContext context, Collection<Candidate> measured) {
        StringBuilder out = new StringBuilder();
        DeviceInfo d = context == null ? null : context.device();
        if (d == null) {
            out.append("- GPU: not reported for this campaign\n");
        } else {
            // its limits on a launch are stated once, with the rules (ContractRules)
            out.append(String.format(Locale.ROOT, "- GPU: %s (%s), %d SMs, L2 %.0f MB, %.0f GB memory%n", d.name(),
                    d.arch(), d.sms(), d.l2Bytes() / 1048576.0, d.memoryBytes() / 1e9));
        }
        copyBandwidth(taskOf(context), measured).ifPresent(b -> out.append(b).append('\n'));
        return out.toString().stripTrailing();
    }

    /** The campaign's task; a float32 softmax when it did not say (tests, records without a context). */
    static Task taskOf(TaskContext context) {
        return context == null ? Task.softmax(Precision.FP32) : context.task();
    }

    /**
     * From the largest shape with a timed copy: the bytes the copy moved (the task's floor bytes, half read and half
     * written, in its dtypes) over the copy's median.
     */
    static Optional<String> copyBandwidth(Task task, Collection<Candidate> measured) {
        ShapeResult best = null;
        long bestElements = 0;
        for (Candidate c : measured) {
            if (c == null || c.result() == null) {
                continue;
            }
            for (ShapeResult s : c.result().shapes()) {
                if (s.copy() == null || s.copy().medianMs() <= 0) {
                    continue;
                }
                long elements = Shape.parse(s.shape()).elements();
                if (elements > bestElements) {
                    best = s;
                    bestElements = elements;
                }
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        long bytes = task.floorBytes(Shape.parse(best.shape()));
        double tbps = bytes / (best.copy().medianMs() / 1000) / 1e12;
        return Optional.of(String.format(Locale.ROOT, "- measured copy bandwidth: %.2f TB/s (a device-to-device "
                + "copy of the %.1f MB a %s of %s moves, half read and half written, L2 flushed: %.1f us)", tbps,
                bytes / 1e6, task, best.shape(), best.copy().medianMs() * 1000));
    }

    /** The operator's task as its own text states it ({@link dev.kevo.task.op.Operator#taskText()}). */
    static String task(TaskContext context) {
        return taskOf(context).op().taskText().stripTrailing();
    }

    /** The dtypes the kernel must implement, and how a file says so; float32 when the campaign did not say. */
    static String dtype(TaskContext context) {
        Precision dtype = taskOf(context).dtype();
        if (dtype.equals(Precision.FP32)) {
            return "float32 (`const float* x`, `float* y`)";
        }
        String in = dtype.x().id() + " (`const " + dtype.x().cudaType() + "* x`)";
        String out = dtype.y().id() + " (`" + dtype.y().cudaType() + "* y`)";
        return "x in " + in + " and y in " + out + ", accumulated in float32; the header must say `\"dtype\": \""
                + dtype.id() + "\"`. kevo.h's 16-bit types are plain words: convert with `kevo_to_float` and "
                + "`kevo_from_float<T>` (round to nearest even), and move 8 elements in one 16-byte access with "
                + "`kevo_load8`/`kevo_store8`; half the bytes of float32 make launch latency and reductions weigh twice "
                + "as much";
    }

    static String suite(TaskContext context, Candidate any) {
        List<String> shapes = context != null ? context.shapes().stream().map(Shape::toString).toList()
                : any.result() == null ? List.of() : any.result().shapes().stream().map(ShapeResult::shape).toList();
        String name = context == null ? "the campaign's suite" : "suite " + context.suite();
        // The baseline by the name a user knows ("cuDNN 9.14.0"), so a model reads "2.1x" as a user would.
        String baseline = context == null ? "" : "; a speedup is x over " + context.baseline() + " (its time / the "
                + "kernel's, both measured side by side), a score the geometric mean of the speedups";
        return "- " + name + ", " + shapes.size() + " shapes (rows x cols): " + String.join(", ", shapes) + baseline;
    }

    /** A kernel's results and source, under a heading naming its role (parent, inspiration, ...). */
    static String kernel(String role, Candidate c) {
        return heading(role, c) + "\n" + results(c.result()) + "\n```cuda\n" + c.source().stripTrailing() + "\n```\n";
    }

    /** Results without the source, for kernels the prompt only mentions. */
    static String heading(String role, Candidate c) {
        CandidateResult r = c.result();
        String verdict;
        if (r == null) {
            verdict = "not evaluated";
        } else if (r.passed()) {
            verdict = String.format(Locale.ROOT, "pass, score %.3fx, memory floor %.2f", r.score().speedup(),
                    r.score().floorFraction());
        } else {
            verdict = r.verdict().id();
        }
        return "### " + role + " `" + c.id() + "`: " + verdict;
    }

    static String results(CandidateResult r) {
        if (r == null) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        if (!r.passed()) {
            out.append("Verdict ").append(r.verdict().id());
            if (r.detail() != null) {
                out.append(": ").append(clip(r.detail()));
            }
            out.append('\n');
        }
        if (!r.kernels().isEmpty()) {
            out.append("Kernels: ").append(r.kernels().stream().map(Evidence::resources)
                    .collect(Collectors.joining("; "))).append('\n');
        }
        if (r.compileLog() != null && !r.compileLog().isBlank() && !r.passed()) {
            out.append("Compiler log:\n```\n").append(clip(r.compileLog())).append("\n```\n");
        }
        if (!r.shapes().isEmpty()) {
            out.append("| shape | plan | verdict | time (us) | baseline (us) | speedup | memory floor |\n");
            out.append("| --- | --- | --- | --- | --- | --- | --- |\n");
            List<String> failures = new ArrayList<>();
            for (ShapeResult s : r.shapes()) {
                out.append("| ").append(s.shape()).append(" | ").append(s.plan() == null ? "-" : s.plan())
                        .append(" | ").append(s.verdict().id())
                        .append(" | ").append(s.candidate() == null ? "-" : us(s.candidate().medianMs()))
                        .append(" | ").append(s.baseline() == null ? "-" : us(s.baseline().medianMs()))
                        .append(" | ").append(s.speedup() == null ? "-" : String.format(Locale.ROOT, "%.2fx", s.speedup()))
                        .append(" | ").append(s.floorFraction() == null ? "-"
                                : String.format(Locale.ROOT, "%.2f", s.floorFraction()))
                        .append(" |\n");
                if (!s.verdict().passed() && s.detail() != null) {
                    failures.add("- " + s.shape() + ": " + s.verdict().id() + ": " + clip(s.detail()));
                }
            }
            if (!failures.isEmpty()) {
                out.append("Failures:\n").append(String.join("\n", failures)).append('\n');
            }
        }
        return out.toString().stripTrailing();
    }

    /**
     * Nsight Compute's profile of the parent on its shapes furthest from the memory floor: where its time goes, in
     * the numbers a GPU engineer would look at first.
     */
    static String profile(Profile p) {
        if (p.launches().isEmpty()) {
            return "";  // why there is none (a path on the GPU host, an ncu error) is for the campaign's record
        }
        return "\nProfile of the parent (Nsight Compute on the GPU that judges it, clocks as they run; one line per "
                + "launch):\n" + String.join("\n", p.lines().stream().map(l -> "- " + l).toList()) + "\n";
    }

    /** Knob values listed per knob in the evidence: the best few, so a prompt stays short. */
    static final int KNOB_VALUES_SHOWN = 5;

    /**
     * A knobbed kernel's knobs, their current and allowed values, and per knob which values did best among its
     * relatives that declare a knob of that name (best score with each value, and how many were judged with it).
     * Empty for a kernel without knobs.
     */
    static String knobs(Candidate kernel, List<Candidate> relatives) {
        Optional<KernelFile> file = knobbed(kernel);
        if (file.isEmpty()) {
            return "";
        }
        List<KernelFile> judged = new ArrayList<>();
        List<Double> scores = new ArrayList<>();
        for (Candidate r : relatives) {
            if (r.result() != null && r.result().passed() && !r.id().equals(kernel.id())) {
                knobbed(r).ifPresent(f -> {
                    judged.add(f);
                    scores.add(r.result().score().speedup());
                });
            }
        }
        if (kernel.result() != null && kernel.result().passed()) {
            judged.add(file.get());
            scores.add(kernel.result().score().speedup());
        }
        StringBuilder out = new StringBuilder("Knobs of `" + kernel.id() + "` (kevo's tuner steps these for free; "
                + "the scores are the best kernel judged with each value):\n");
        for (Knob k : file.get().knobs().knobs()) {
            out.append("- ").append(k.name()).append(" = ").append(k.value()).append(" (allowed: ")
                    .append(allowed(k.values())).append(')');
            Map<String, double[]> byValue = new LinkedHashMap<>();  // value -> {best score, count}
            for (int i = 0; i < judged.size(); i++) {
                Optional<Knob> same = judged.get(i).knobs().get(k.name());
                if (same.isPresent()) {
                    double[] seen = byValue.computeIfAbsent(same.get().value(), v -> new double[] {0, 0});
                    seen[0] = Math.max(seen[0], scores.get(i));
                    seen[1]++;
                }
            }
            if (byValue.size() > 1 || byValue.values().stream().anyMatch(v -> v[1] > 1)) {
                out.append("; judged: ").append(byValue.entrySet().stream()
                        .sorted((a, b) -> Double.compare(b.getValue()[0], a.getValue()[0])).limit(KNOB_VALUES_SHOWN)
                        .map(e -> String.format(Locale.ROOT, "%s %.3fx (%d)", e.getKey(), e.getValue()[0],
                                (int) e.getValue()[1]))
                        .collect(Collectors.joining(", ")));
            }
            out.append('\n');
        }
        file.get().knobs().rule().ifPresent(r -> out.append("- rule: ").append(r.text()).append('\n'));
        return out.toString().stripTrailing();
    }

    private static Optional<KernelFile> knobbed(Candidate c) {
        if (c.source() == null || !c.source().contains("\"knobs\"")) {
            return Optional.empty();
        }
        try {
            KernelFile f = ContractParser.parse(c.id() + ".cu", null, c.source());
            return f.knobs().isEmpty() ? Optional.empty() : Optional.of(f);
        } catch (ContractException e) {
            return Optional.empty();
        }
    }

    private static String allowed(List<String> values) {
        return values.size() <= 12 ? String.join(", ", values)
                : values.getFirst() + ", " + values.get(1) + ", ..., " + values.getLast() + " (" + values.size() + " values)";
    }

    /** One line per failure: which kernel, its verdict and the first thing wrong. */
    static String failures(List<Candidate> failures) {
        if (failures.isEmpty()) {
            return "(none recently)";
        }
        StringBuilder out = new StringBuilder();
        for (Candidate f : failures) {
            CandidateResult r = f.result();
            out.append("- `").append(f.id()).append("`: ").append(r == null ? "?" : r.verdict().id());
            if (r != null && r.detail() != null) {
                out.append(": ").append(RetryPolicy.oneLine(r.detail(), 300));
            }
            if (r != null && r.compileLog() != null && !r.compileLog().isBlank()) {
                out.append("\n  compiler: ").append(RetryPolicy.oneLine(firstLines(r.compileLog(), 3), 400));
            }
            out.append('\n');
        }
        return out.toString().stripTrailing();
    }

    private static String resources(KernelResources k) {
        return k.kernel() + " " + k.registers() + " registers"
                + (k.localBytes() > 0 ? ", " + k.localBytes() + " B local memory (spills)" : ", no spills")
                + (k.staticSharedBytes() > 0 ? ", " + k.staticSharedBytes() + " B static shared" : "");
    }

    private static String us(double ms) {
        return String.format(Locale.ROOT, ms * 1000 >= 100 ? "%.0f" : "%.1f", ms * 1000);
    }

    static String clip(String text) {
        String t = firstLines(text.strip(), LOG_LINES);
        return t.length() <= LOG_CHARS ? t : t.substring(0, LOG_CHARS) + "\n[... cut]";
    }

    private static String firstLines(String text, int n) {
        List<String> lines = text.lines().toList();
        return lines.size() <= n ? text : String.join("\n", lines.subList(0, n)) + "\n[... " + (lines.size() - n)
                + " more lines]";
    }
}
