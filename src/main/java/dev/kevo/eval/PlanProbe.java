package dev.kevo.eval;

import dev.kevo.data.MaskKind;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.ToIntFunction;

/**
 * Small shapes that stand for a plan: for the plans no checked shape reached, a grid of row and column counts (powers
 * of two, one either side, small counts) finds most plans a user's shape could take, and champion confirmation checks
 * the smallest shape of each, so that an export runs fewer plans it must refuse for want of a judgement; for a plan
 * that owes every input case, a drawn shape's few-row twin takes them at a fraction of the cost.
 */
final class PlanProbe {
    private static final int[] ROWS = {1, 2, 3, 4, 5, 7, 8, 16, 31, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
            16384, 32768, 65536};

    private PlanProbe() {
    }

    /**
     * Per plan (from 0) no shape of {@code reached} took, the smallest probe shape within {@code bounds} taking it;
     * under each mask kind of the suite's ({@code bounds.masks()}), since plans may choose by it.
     */
    static List<Shape> unreached(Set<Integer> reached, ShapeDraw.Bounds bounds, ToIntFunction<Shape> planOf) {
        Map<Integer, Shape> smallest = new TreeMap<>();
        for (MaskKind kind : bounds.masks()) {
            for (int rows : ROWS) {
                for (long cols : columns()) {
                    if (rows > bounds.rows() || rows * cols > bounds.budget() * 4 || cols > Integer.MAX_VALUE) {
                        continue;
                    }
                    Shape shape = new Shape(rows, (int) cols, 1, 1, kind);
                    if (!bounds.fit(shape)) {
                        continue;
                    }
                    int plan = planOf.applyAsInt(shape);
                    if (plan >= 0 && !reached.contains(plan)) {
                        smallest.merge(plan, shape, (a, b) -> b.elements() < a.elements() ? b : a);
                    }
                }
            }
        }
        return new ArrayList<>(smallest.values());
    }

    /** Rows tried for a shape's twin: few, so that every case costs little. */
    private static final int[] TWIN_ROWS = {1, 2, 3, 4, 8, 16, 64};

    /**
     * A shape's twin: the fewest rows of its columns that take plan {@code plan} (from 0) and {@code bounds} hold,
     * fewer than it has, where a plan owes every case; else the shape itself.
     */
    static Shape twin(Shape shape, int plan, ShapeDraw.Bounds bounds, ToIntFunction<Shape> planOf) {
        for (int rows : TWIN_ROWS) {
            Shape candidate = shape.resized(rows, shape.cols());
            if (rows >= shape.rows() || bounds.exceeds(candidate)) {
                break;
            }
            if (planOf.applyAsInt(candidate) == plan) {
                return candidate;
            }
        }
        return shape;
    }

    /** 1 to 8, then each power of two from 16 to 2^24 and one either side, and three halves of it. */
    private static List<Long> columns() {
        List<Long> cols = new ArrayList<>();
        for (long c = 1; c <= 8; c++) {
            cols.add(c);
        }
        for (int k = 4; k <= 24; k++) {
            long p = 1L << k;
            cols.addAll(List.of(p - 1, p, p + 1, p * 3 / 2));
        }
        return cols;
    }
}
