package dev.kevo.eval;

import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;

/**
 * For every plan a file's checks reached, shapes past 2^31 elements that reach it: one aligned (an even count of rows,
 * columns a multiple of 4: where vectorised plans run, as language-model heads are) and one with odd columns, so that
 * 32-bit offsets fail in every plan, not only in the one the configured at-scale shape takes. Each is found from the
 * plan's own checked shapes: their columns, widest first, with the fewest rows that take the last row's offset past
 * 2^31 as well; else their rows, with the fewest columns that do (a one-row plan: the longest row an int holds, as
 * far as a one-row plan reaches). A plan no such shape reaches gets a line saying so.
 *
 * @param shapes the shapes to check, plan by plan, none twice
 * @param missing per plan (numbered from 0), why it has no shape of a kind
 */
record AtScaleShapes(List<Shape> shapes, Map<Integer, String> missing) {
    private static final long PAST = 1L << 31;
    /**
     * Rows of an at-scale shape at most: the reference keeps 16 bytes of statistics a row (2 GiB here), and rows past
     * 2^31 elements with fewer than 16 columns are a shape no user runs.
     */
    static final long MAX_ROWS = 1L << 27;

    /** @param planOf which plan (from 0) a shape takes, -1 where none does ({@link Preflight#planIndex}) */
    static AtScaleShapes find(Map<Integer, List<Shape>> shapesByPlan, Shape configured, ToIntFunction<Shape> planOf) {
        Set<Shape> chosen = new LinkedHashSet<>();
        Map<Integer, String> missing = new LinkedHashMap<>();
        int configuredPlan = planOf.applyAsInt(configured);
        List<String> lacking = new ArrayList<>();
        shapesByPlan.forEach((plan, shapes) -> {
            lacking.clear();
            for (boolean aligned : new boolean[] {true, false}) {
                if (plan == configuredPlan && (aligned ? isAligned(configured) : configured.cols() % 2 == 1)) {
                    continue;  // the configured at-scale shape is of this kind and reaches the plan
                }
                Shape found = search(plan, shapes, aligned, planOf);
                if (found == null) {
                    lacking.add(aligned ? "columns a multiple of 4 and even rows" : "odd columns");
                } else {
                    chosen.add(found);
                }
            }
            if (!lacking.isEmpty()) {
                missing.put(plan, "no shape past 2^31 elements with " + String.join(", nor with ", lacking)
                        + " reaches it (tried its checked shapes' columns and rows, at most " + MAX_ROWS + " rows)");
            }
        });
        return new AtScaleShapes(List.copyOf(chosen), missing);
    }

    private static boolean isAligned(Shape s) {
        return s.cols() % 4 == 0 && s.rows() % 2 == 0;
    }

    private static Shape search(int plan, List<Shape> shapes, boolean aligned, ToIntFunction<Shape> planOf) {
        List<Shape> widest = shapes.stream().sorted(Comparator.comparingInt(Shape::cols).reversed()).toList();
        List<Shape> candidates = new ArrayList<>(growRows(widest, aligned));
        candidates.addAll(growCols(widest, aligned));
        return candidates.stream().filter(c -> planOf.applyAsInt(c) == plan).findFirst().orElse(null);
    }

    /**
     * The columns of the checked shapes, widest first, each with the fewest rows that take the last row's offset,
     * (rows - 1) x cols, past 2^31 too, not only the last element's.
     */
    private static List<Shape> growRows(List<Shape> widest, boolean aligned) {
        List<Shape> out = new ArrayList<>();
        for (Shape s : widest) {
            for (long cols : aligned ? new long[] {s.cols() / 4 * 4, s.cols() / 4 * 4 + 4}
                    : new long[] {s.cols() | 1, (s.cols() | 1) - 2}) {
                long rows = cols < 1 ? 0 : PAST / cols + 2;
                rows += aligned ? rows % 2 : 0;
                if (cols >= 1 && cols <= Integer.MAX_VALUE && rows <= MAX_ROWS) {
                    out.add(s.resized((int) rows, (int) cols));
                }
            }
        }
        return out;
    }

    /** The rows of the checked shapes, each with the fewest columns past 2^31 elements (one row: the longest an int). */
    private static List<Shape> growCols(List<Shape> shapes, boolean aligned) {
        List<Shape> out = new ArrayList<>();
        for (Shape s : shapes) {
            long rows = aligned && s.rows() % 2 == 1 && s.rows() > 1 ? s.rows() + 1L : s.rows();
            long cols = rows == 1 ? Integer.MAX_VALUE : PAST / (rows - 1) + 1;
            cols = aligned ? cols / 4 * 4 + (rows == 1 ? 0 : 4) : cols | 1;
            if (cols > Integer.MAX_VALUE) {
                cols = aligned ? Integer.MAX_VALUE / 4 * 4 : Integer.MAX_VALUE;
            }
            if (rows <= MAX_ROWS && (rows == 1 || (rows - 1) * cols >= PAST)) {
                out.add(s.resized((int) rows, (int) cols));
            }
        }
        return out;
    }
}
