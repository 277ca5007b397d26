package dev.kevo.eval;

import dev.kevo.data.BeyondSuite;
import dev.kevo.data.ShapeRegime;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the shapes an evaluation checks beyond its suite, from its timing secret: the same secret draws the same
 * shapes (a replay with {@code --timing-secret}), and nothing a kernel can read reveals them beforehand. Each drawn
 * shape fits the buffers the evaluation already holds for its suite ({@link Bounds}), so checking it allocates
 * nothing.
 */
final class ShapeDraw {
    /** Widest rows the narrow and unaligned regimes draw among; one-row and large-odd go up to the size bound. */
    private static final int MANY_ROWS = 8192;
    private static final int WIDE_UNALIGNED = 65536;
    private static final int LONG_ODD_ROW = 131073;

    private ShapeDraw() {
    }

    /** A shape drawn from {@code regime}. */
    record Drawn(ShapeRegime regime, Shape shape) {
    }

    /**
     * What the evaluation's buffers hold, sized for the suite: elements of x and y, rows of the reference's row
     * statistics, bytes of its scratch. {@code budget} bounds a drawn shape's elements to a quarter of the suite's
     * largest, so that the shapes drawn for every evaluation add little to what checking the suite costs.
     */
    record Bounds(long elements, int rows, long referenceScratchBytes) {
        static Bounds of(List<Shape> suite) {
            return new Bounds(suite.stream().mapToLong(Shape::elements).max().orElseThrow(),
                    suite.stream().mapToInt(Shape::rows).max().orElseThrow(),
                    suite.stream().mapToLong(TrustedKernels::referenceScratchBytes).max().orElseThrow());
        }

        boolean fit(Shape s) {
            return s.elements() <= elements && s.rows() <= rows
                    && TrustedKernels.referenceScratchBytes(s) <= referenceScratchBytes;
        }

        long budget() {
            return Math.max(1, elements / 4);
        }
    }

    /** The shapes drawn for every evaluation: one per entry of {@code regimes}, in order. */
    static List<Drawn> fresh(long secret, List<ShapeRegime> regimes, Bounds bounds) {
        return draw(secret, regimes, bounds, InputSalt.FRESH_SHAPE);
    }

    /** The held-out shapes of champion confirmation and {@code kevo eval --at-scale}, drawn apart from the fresh. */
    static List<Drawn> heldOut(long secret, BeyondSuite settings, Bounds bounds) {
        return draw(secret, settings.heldOutRegimes(), bounds, InputSalt.HELD_OUT_SHAPE);
    }

    private static List<Drawn> draw(long secret, List<ShapeRegime> regimes, Bounds bounds, InputSalt use) {
        List<Drawn> drawn = new ArrayList<>();
        for (int k = 0; k < regimes.size(); k++) {
            SplittableRandom random = new SplittableRandom(use.derive(secret, k, 0));
            drawn.add(new Drawn(regimes.get(k), one(regimes.get(k), random, bounds)));
        }
        return drawn;
    }

    private static Shape one(ShapeRegime regime, SplittableRandom r, Bounds bounds) {
        long budget = bounds.budget();
        long rows;
        long cols;
        switch (regime) {
            case NARROW -> {
                cols = 1 + r.nextInt(127);
                rows = logUniform(r, 1, MANY_ROWS);
            }
            case UNALIGNED -> {
                cols = logUniform(r, 129, WIDE_UNALIGNED);
                cols += cols % 4 == 0 ? 1 + r.nextInt(3) : 0;
                rows = logUniform(r, 1, MANY_ROWS);
            }
            case ONE_ROW -> {
                rows = 1;
                cols = logUniform(r, 1, Math.min(budget, Integer.MAX_VALUE));
            }
            case LARGE_ODD -> {
                // Between a sixteenth and a quarter of the suite's largest shape: many rows (no more than the suite
                // has), each long.
                long elements = logUniform(r, Math.max(9, budget / 4), Math.max(9, budget));
                long longest = Math.min(LONG_ODD_ROW, elements / 3);
                cols = logUniform(r, Math.min(longest, Math.max(129, elements / bounds.rows() + 1)), longest) | 1;
                rows = elements / cols | 1;
            }
            default -> throw new IllegalStateException(regime.id());
        }
        while (rows * cols > budget || !bounds.fit(new Shape((int) rows, (int) cols))) {
            if (rows > 1) {
                rows = regime == ShapeRegime.LARGE_ODD ? rows / 2 | 1 : rows / 2;
            } else if (cols > 1) {
                cols = switch (regime) {
                    case UNALIGNED -> cols / 2 % 4 == 0 ? cols / 2 - 1 : cols / 2;
                    case LARGE_ODD -> cols / 2 | 1;
                    default -> cols / 2;
                };
            } else {
                break;  // 1x1 fits any suite's buffers
            }
        }
        return new Shape((int) rows, (int) cols);
    }

    /** An integer in [lo, hi], its logarithm uniform: small and large sizes alike. */
    private static long logUniform(SplittableRandom r, long lo, long hi) {
        if (hi <= lo) {
            return lo;
        }
        double v = Math.exp(Math.log(lo) + r.nextDouble() * (Math.log(hi + 1.0) - Math.log(lo)));
        return Math.max(lo, Math.min(hi, (long) v));
    }
}
