package dev.kevo.eval;

import dev.kevo.data.BeyondSuite;
import dev.kevo.data.MaskKind;
import dev.kevo.data.ShapeRegime;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Draws the shapes an evaluation checks beyond its suite, from its timing secret: the same secret draws the same
 * shapes (a replay with {@code --timing-secret}), and nothing a kernel can read reveals them beforehand. Each drawn
 * shape fits the buffers the evaluation already holds for its suite ({@link Bounds}), so checking it allocates
 * nothing. Where the suite holds attention shapes (batch entries, heads or a mask kind), each drawn shape is laid out
 * as one too, with a mask kind of the suite's and heads and batch entries drawn among its rows' divisors: plans may
 * choose by them, and a kernel's indexing of heads and queries is as open to a suite's assumptions as its columns.
 */
final class ShapeDraw {
    /** Widest rows the narrow and unaligned regimes draw among; one-row and large-odd go up to the size bound. */
    private static final int MANY_ROWS = 8192;
    private static final int WIDE_UNALIGNED = 65536;
    private static final int LONG_ODD_ROW = 131073;
    /** The vocabularies of language-model heads: GPT-2's is about 50K, Gemma 3's 262144. */
    private static final int LM_HEAD_COLS = 4096;
    private static final int LONG_LM_ROW = 262144;

    private ShapeDraw() {
    }

    /** A shape drawn from {@code regime}. */
    record Drawn(ShapeRegime regime, Shape shape) {
    }

    /**
     * What the evaluation's buffers hold, sized for the suite: elements of x and y, rows of the reference's row
     * statistics, bytes of its scratch. {@code budget} bounds a drawn shape's elements to a quarter of the suite's
     * largest, so that the shapes drawn for every evaluation add little to what checking the suite costs.
     * {@code masks} are the mask kinds the suite's shapes have, in its order, and {@code attention} whether any of them
     * is laid out as attention (or masked): then drawn shapes are too.
     */
    record Bounds(long elements, int rows, long referenceScratchBytes, List<MaskKind> masks, boolean attention) {
        Bounds {
            masks = List.copyOf(masks);
        }

        /** Bounds of plain shapes, masked by nothing. */
        Bounds(long elements, int rows, long referenceScratchBytes) {
            this(elements, rows, referenceScratchBytes, List.of(MaskKind.NONE), false);
        }

        static Bounds of(List<Shape> suite) {
            return new Bounds(suite.stream().mapToLong(Shape::elements).max().orElseThrow(),
                    suite.stream().mapToInt(Shape::rows).max().orElseThrow(),
                    suite.stream().mapToLong(TrustedKernels::referenceScratchBytes).max().orElseThrow(),
                    suite.stream().map(Shape::mask).distinct().toList(),
                    suite.stream().anyMatch(s -> s.batch() > 1 || s.heads() > 1 || s.mask() != MaskKind.NONE));
        }

        boolean fit(Shape s) {
            return s.elements() <= elements && s.rows() <= rows
                    && TrustedKernels.referenceScratchBytes(s) <= referenceScratchBytes;
        }

        long budget() {
            return Math.max(1, elements / 4);
        }

        /**
         * The bounds of the regimes only held-out shapes are drawn from ({@link ShapeRegime#heldOutOnly}), whose shapes
         * the suite's buffers may not hold (those are checked in buffers of their own): up to {@link #ROWS_BEYOND}
         * times the suite's rows, and a budget of as many elements as its largest shape (a quarter of that would leave
         * many long rows no room).
         */
        Bounds beyondRows() {
            // Room for the least language-model-head shape, 2x4, whatever the suite.
            long room = Math.max(elements, 8) * 4;
            Shape widest = new Shape((int) Math.min(Integer.MAX_VALUE, (long) rows * ROWS_BEYOND),
                    (int) Math.max(1, Math.min(Integer.MAX_VALUE, room / rows)));
            return new Bounds(room, widest.rows(), TrustedKernels.referenceScratchBytes(widest), masks, attention);
        }

        /** True when {@code s} needs more than these bounds hold: it is checked in buffers of its own. */
        boolean exceeds(Shape s) {
            return !fit(s);
        }
    }

    /** How many times the suite's row count shapes past it may have. */
    static final int ROWS_BEYOND = 4;

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
            ShapeRegime regime = regimes.get(k);
            Shape shape = one(regime, random, bounds, regime.heldOutOnly() ? bounds.beyondRows() : bounds);
            // The layout from a stream of its own: a plain suite's draws stay what they were.
            drawn.add(new Drawn(regime, laidOut(shape, new SplittableRandom(use.derive(secret, k, 1)), bounds)));
        }
        return drawn;
    }

    /** One shape of {@code regime} within {@code bounds}; {@code suite}'s rows are what many-rows goes past. */
    private static Shape one(ShapeRegime regime, SplittableRandom r, Bounds suite, Bounds bounds) {
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
            case MANY_ROWS -> {
                rows = logUniform(r, suite.rows() + 1L, bounds.rows());
                cols = logUniform(r, 1, Math.max(1, budget / rows));
            }
            case LM_HEAD -> {
                // Long rows a multiple of 4, an even count of them past the suite's: a vocabulary, many tokens.
                cols = logUniform(r, LM_HEAD_COLS, Math.max(LM_HEAD_COLS, Math.min(LONG_LM_ROW, budget / 2))) / 4 * 4;
                rows = Math.max(2, logUniform(r, 2, Math.max(2, budget / cols)) / 2 * 2);
            }
            default -> throw new IllegalStateException(regime.id());
        }
        // The fewest rows and columns the regime allows: an even count of rows, columns a multiple of 4.
        long leastRows = regime == ShapeRegime.LM_HEAD ? 2 : 1;
        long leastCols = regime == ShapeRegime.LM_HEAD ? 4 : 1;
        while (rows * cols > budget || !bounds.fit(new Shape((int) rows, (int) cols))) {
            if (rows > leastRows) {
                rows = switch (regime) {
                    case LARGE_ODD -> rows / 2 | 1;
                    case LM_HEAD -> Math.max(2, rows / 4 * 2);
                    default -> rows / 2;
                };
            } else if (cols > leastCols) {
                cols = switch (regime) {
                    case UNALIGNED -> cols / 2 % 4 == 0 ? cols / 2 - 1 : cols / 2;
                    case LARGE_ODD -> cols / 2 | 1;
                    case LM_HEAD -> Math.max(4, cols / 8 * 4);
                    default -> cols / 2;
                };
            } else {
                break;  // the least shape of the regime fits any suite's buffers
            }
        }
        return new Shape((int) rows, (int) cols);
    }

    /** Heads of a drawn attention shape at most: a power of two up to 32, as models have them. */
    private static final int MOST_HEADS_LOG2 = 5;
    /** Batch entries of a drawn attention shape at most. */
    private static final int MOST_BATCH = 8;

    /**
     * {@code shape} laid out as attention where {@code bounds} says the suite is: a mask kind of the suite's; heads a
     * power of two dividing its rows; batch entries a divisor of the rest up to {@link #MOST_BATCH}; the rest queries.
     */
    static Shape laidOut(Shape shape, SplittableRandom r, Bounds bounds) {
        if (!bounds.attention()) {
            return shape;
        }
        MaskKind kind = bounds.masks().get(r.nextInt(bounds.masks().size()));
        int heads = 1 << r.nextInt(Math.min(MOST_HEADS_LOG2, Integer.numberOfTrailingZeros(shape.rows())) + 1);
        int rest = shape.rows() / heads;
        List<Integer> divisors = new ArrayList<>();
        for (int b = 1; b <= MOST_BATCH; b++) {
            if (rest % b == 0) {
                divisors.add(b);
            }
        }
        int batch = divisors.get(r.nextInt(divisors.size()));
        return new Shape(shape.rows(), shape.cols(), batch, heads, kind);
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
