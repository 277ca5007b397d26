package dev.kevo.report;

import dev.kevo.data.CandidateResult;
import dev.kevo.data.KernelResources;
import dev.kevo.data.Score;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Stats;
import dev.kevo.data.Shape;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/** The per-file table {@code kevo eval} prints: one line per shape, then the score. */
public final class EvalTable {

    private EvalTable() {
    }

    /**
     * @param baseline how the baseline is named in the score line: {@code cuDNN 9.14.0}, {@code block_two_pass}
     * @param tolerance kevo's relative L2 bound: a vendor baseline's own error above it gets a column and a note
     */
    public static void print(CandidateResult result, String baseline, double tolerance, boolean cold,
                             PrintWriter out) {
        out.println();
        out.println(result.name() + (result.description() == null || result.description().isBlank() ? ""
                : "  (" + result.description() + ")"));
        if (result.shapes().isEmpty()) {
            out.println("  " + result.verdict().id() + ": " + result.detail());
            return;
        }
        List<ShapeResult> baselineWrong = result.shapes().stream().filter(s -> s.baselineRelativeL2() != null
                && !(s.baselineRelativeL2() <= tolerance)).toList();
        boolean wrongColumn = !baselineWrong.isEmpty();
        // 12 characters hold every plain shape's name; an attention shape's (1x32x4096x4096:additive) widens the column
        int width = Math.max(12, result.shapes().stream().mapToInt(s -> s.shape().length()).max().orElse(0));
        String header = String.format(Locale.ROOT, "  %-" + width + "s %4s  %-18s %10s %7s %7s %10s %8s %6s %9s%s%s",
                "shape",
                "plan", "verdict", "time(us)", "+-ci", "spread", "base(us)", "speedup", "floor", "rel.L2",
                cold ? "   cold(us)" : "", wrongColumn ? "   base.L2" : "");
        out.println(header);
        for (ShapeResult s : result.shapes()) {
            out.println(row(s, cold, width) + (wrongColumn ? String.format(Locale.ROOT, " %9s",
                    baselineWrong.contains(s) ? String.format(Locale.ROOT, "%.1e", s.baselineRelativeL2()) : "-")
                    : ""));
        }
        if (wrongColumn) {
            out.printf(Locale.ROOT, "  note: the baseline (%s) is itself off by more than kevo's tolerance (relative L2 "
                    + "%.0e) on %s (base.L2): kevo would reject it there%n", baseline, tolerance,
                    baselineWrong.stream().map(ShapeResult::shape).collect(Collectors.joining(", ")));
        }
        if (result.shapes().stream().anyMatch(s -> s.timingFlag() != null)) {
            out.println("  bimodal, wide: the kernel's times were not one clean mode, twice; that median is not a clean"
                    + " number");
        }
        beyondSuite(result, out);
        if (!result.kernels().isEmpty()) {
            out.println("  kernels: " + result.kernels().stream().map(EvalTable::resources)
                    .collect(Collectors.joining(", ")) + String.format(Locale.ROOT, "; compiled in %.0f ms",
                    result.compileMs()));
        }
        if (result.deterministic() != null) {
            out.println("  " + determinism(result));
        }
        if (result.sanitized() != null) {
            out.println("  sanitized  " + result.sanitized().summary());
        }
        if (result.passed()) {
            Score score = result.score();
            String interval = !score.hasInterval() ? "" : String.format(Locale.ROOT, " (95%% CI %.3f-%.3f)",
                    score.ciLow(), score.ciHigh());
            out.printf(Locale.ROOT, "  PASS  score %.3fx%s over %s (geometric mean speedup), memory floor %.2f "
                    + "(geometric mean of copy time / kernel time)%n", score.speedup(), interval, baseline,
                    score.floorFraction());
        } else {
            out.println("  REJECTED  " + result.verdict().id() + ": " + result.detail());
        }
    }

    /**
     * The shapes checked beyond the suite, one line per kind: the fresh ones drawn for this evaluation, each with its
     * verdict, and with {@code --at-scale} the held-out ones (counted, failures named) and the at-scale one.
     */
    private static void beyondSuite(CandidateResult result, PrintWriter out) {
        if (!result.freshShapes().isEmpty()) {
            out.println("  fresh shapes (drawn for this evaluation, checked untimed): " + result.freshShapes().stream()
                    .map(s -> s.shape() + " " + s.verdict().id()).collect(Collectors.joining(", ")));
        }
        List<ShapeResult> scale = result.atScaleShapes();
        if (scale == null) {
            return;
        }
        List<ShapeResult> heldOut = scale.stream().filter(s -> s.regime() != null).toList();
        out.printf("  at scale: %d held-out shapes %s", heldOut.size(), verdicts(heldOut));
        // The rest: probes of plans no shape reached (small), then shapes past 2^31 elements, the configured one first
        // and one or two for each plan. A probe is not at scale and is not named as if it were.
        List<ShapeResult> probes = scale.stream().filter(s -> s.regime() == null && !past31(s)).toList();
        if (!probes.isEmpty()) {
            out.print("; plan probes " + probes.stream().map(s -> s.shape() + " " + s.verdict().id())
                    .collect(Collectors.joining(", ")));
        }
        List<ShapeResult> past = scale.stream().filter(s -> s.regime() == null && past31(s)).toList();
        if (!past.isEmpty()) {
            ShapeResult first = past.getFirst();
            out.printf(Locale.ROOT, "; %s (%,d elements) %s", first.shape(), Shape.parse(first.shape()).elements(),
                    first.verdict().id());
            List<ShapeResult> more = past.subList(1, past.size());
            if (!more.isEmpty()) {
                out.printf("; %d more past 2^31 elements, for the plans, %s", more.size(), verdicts(more));
            }
        }
        out.println(result.atScaleNote() == null ? "" : "; " + result.atScaleNote());
    }

    private static boolean past31(ShapeResult s) {
        return Shape.parse(s.shape()).elements() > Integer.MAX_VALUE;
    }

    /** "pass" when every shape passed, else "checked, " and each failed shape with its verdict. */
    private static String verdicts(List<ShapeResult> shapes) {
        String failed = shapes.stream().filter(s -> !s.verdict().passed()).map(s -> s.shape() + " "
                + s.verdict().id()).collect(Collectors.joining(", "));
        return failed.isEmpty() ? "pass" : "checked, " + failed;
    }

    /** Whether the output repeated bit for bit, and where it did not. */
    public static String determinism(CandidateResult result) {
        if (Boolean.TRUE.equals(result.deterministic())) {
            return "deterministic: launched twice on one input, every shape wrote the same bits";
        }
        return "not deterministic: launched twice on one input, it wrote other bits on " + result.shapes().stream()
                .filter(s -> Boolean.FALSE.equals(s.deterministic())).map(ShapeResult::shape)
                .collect(Collectors.joining(", "));
    }

    private static String row(ShapeResult s, boolean cold, int width) {
        Stats c = s.candidate();
        Stats b = s.baseline();
        return String.format(Locale.ROOT, "  %-" + width + "s %4s  %-18s %10s %7s %7s %10s %8s %6s %9s%s", s.shape(),
                s.plan() == null ? "-" : s.plan(),
                s.verdict().id() + (s.timingFlag() == null ? "" : " " + s.timingFlag()),
                c == null ? "-" : us(c.medianMs()), c == null ? "-" : pct(c.relativeCi()),
                c == null ? "-" : pct(c.relativeSpread()), b == null ? "-" : us(b.medianMs()),
                s.speedup() == null ? "-" : String.format(Locale.ROOT, "%.2fx", s.speedup()),
                s.floorFraction() == null ? "-" : String.format(Locale.ROOT, "%.2f", s.floorFraction()),
                s.relativeL2() == null ? "-" : String.format(Locale.ROOT, "%.1e", s.relativeL2()),
                cold ? String.format(Locale.ROOT, " %10s", s.coldMs() == null ? "-" : us(s.coldMs())) : "");
    }

    /** One kernel's registers, and its local memory when it has any (spills or a stack array). */
    public static String resources(KernelResources k) {
        return k.kernel() + " " + k.registers() + " regs" + (k.localBytes() > 0 ? " " + k.localBytes()
                + " B local (spills)" : "");
    }

    private static String us(double ms) {
        double us = ms * 1000;
        return String.format(Locale.ROOT, us >= 100 ? "%.0f" : "%.1f", us);
    }

    private static String pct(double fraction) {
        return String.format(Locale.ROOT, "%.1f%%", fraction * 100);
    }
}
