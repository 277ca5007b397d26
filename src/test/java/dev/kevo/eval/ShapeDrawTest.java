package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.BeyondSuite;
import dev.kevo.data.Defaults;
import dev.kevo.data.MaskKind;
import dev.kevo.data.ShapeRegime;
import dev.kevo.data.Shape;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The shapes an evaluation checks beyond its suite, drawn from its timing secret without a GPU. */
class ShapeDrawTest {
    private static final List<ShapeRegime> ALL = List.of(ShapeRegime.values());

    private static List<Shape> suite(String name) {
        return SuiteFile.load(TestFiles.root().resolve("evaluator/suites/" + name + ".yaml")).shapes();
    }

    private static List<ShapeDraw.Drawn> both(long secret, ShapeDraw.Bounds bounds) {
        return Stream.concat(ShapeDraw.fresh(secret, ALL, bounds).stream(),
                ShapeDraw.heldOut(secret, BeyondSuite.defaults(), bounds).stream()).toList();
    }

    @Test
    void aSecretDrawsTheSameShapesEveryTime() {
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(suite("standard"));
        assertEquals(both(42, bounds), both(42, bounds));
        assertEquals(ALL, ShapeDraw.fresh(42, ALL, bounds).stream().map(ShapeDraw.Drawn::regime).toList(),
                "one shape per regime asked for, in order");
        assertEquals(List.of(), ShapeDraw.fresh(42, List.of(), bounds), "switched off: none");
    }

    @Test
    void everyDrawnShapeIsOfItsRegimeAndTheRegimesReachWhatSuitesMiss() {
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(suite("standard"));
        Set<Long> narrowMod4 = new HashSet<>();
        long largestOneRow = 0;
        for (long secret = 0; secret < 2000; secret++) {
            for (ShapeDraw.Drawn d : both(secret, bounds)) {
                Shape s = d.shape();
                assertTrue(d.regime().holds(s.rows(), s.cols()), d.regime() + ": " + s);
                switch (d.regime()) {
                    case NARROW -> narrowMod4.add((long) s.cols() % 4);
                    case ONE_ROW -> largestOneRow = Math.max(largestOneRow, s.cols());
                    case LARGE_ODD -> assertTrue(s.rows() >= 3 && s.elements() >= bounds.budget() / 5,
                            "many long rows: " + s);
                    case MANY_ROWS -> assertTrue(s.rows() > bounds.rows(), "past the suite's rows: " + s);
                    case LM_HEAD -> assertTrue(s.cols() >= 4096, "a vocabulary's row: " + s);
                    default -> { }
                }
            }
        }
        assertEquals(Set.of(0L, 1L, 2L, 3L), narrowMod4, "narrow rows of a multiple of 4 columns and of others");
        assertTrue(largestOneRow > 1_000_000, "one-row shapes reach long rows: " + largestOneRow);
    }

    @Test
    void everyDrawnShapeFitsTheBuffersHeldForItsSuite() {
        for (List<Shape> suite : List.of(suite("standard"), suite("quick"), suite("llm"), suite("long"),
                List.of(new Shape(1, 5)), List.of(new Shape(3, 200)))) {
            ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(suite);
            for (long secret = 0; secret < 500; secret++) {
                for (ShapeDraw.Drawn d : both(secret, bounds)) {
                    Shape s = d.shape();
                    ShapeDraw.Bounds held = d.regime().heldOutOnly() ? bounds.beyondRows() : bounds;
                    assertTrue(held.fit(s) && s.elements() <= held.budget(), s + " for " + suite);
                    assertTrue(d.regime().holds(s.rows(), s.cols()), d.regime() + ": " + s + " for " + suite);
                }
            }
        }
    }

    @Test
    void differentSecretsDrawDifferentShapesAndTheHeldOutOnesAreApart() {
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(suite("standard"));
        Set<List<ShapeDraw.Drawn>> seen = new HashSet<>();
        for (long secret = 0; secret < 200; secret++) {
            seen.add(ShapeDraw.fresh(secret, ALL, bounds));
            assertNotEquals(ShapeDraw.fresh(secret, ALL, bounds),
                    ShapeDraw.heldOut(secret, BeyondSuite.defaults(), bounds).subList(0, ALL.size()));
        }
        assertTrue(seen.size() >= 199, "200 secrets, " + seen.size() + " draws");
    }

    @Test
    void theAtScaleShapeIsOneWhoseLastIndexNoIntHolds() {
        Shape atScale = Shape.parse(Defaults.AT_SCALE_SHAPE);
        assertTrue(atScale.elements() - 1 > Integer.MAX_VALUE, "a 32-bit element index overflows: " + atScale);
        assertTrue((long) (atScale.rows() - 1) * atScale.cols() > Integer.MAX_VALUE,
                "so does the last row's 32-bit offset");
        assertTrue(atScale.rows() >= 16384 && atScale.cols() >= 131072, "at least 16K tokens x a 128K vocabulary");
    }

    /** A plain suite's draws stay plain: the layout comes from a stream of its own, so softmax's shapes are unchanged. */
    @Test
    void aPlainSuitesDrawsAreLeftPlain() {
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(suite("standard"));
        assertFalse(bounds.attention());
        assertEquals(List.of(MaskKind.NONE), bounds.masks());
        for (long secret = 0; secret < 300; secret++) {
            for (ShapeDraw.Drawn d : both(secret, bounds)) {
                assertEquals(new Shape(d.shape().rows(), d.shape().cols()), d.shape());
            }
        }
    }

    /**
     * An attention suite's draws are laid out as attention: the same sizes a plain suite of its bounds draws, each
     * under one of its mask kinds, with heads (a power of two up to 32) and batch entries (up to 8) dividing the rows.
     */
    @Test
    void anAttentionSuitesDrawsAreLaidOutUnderItsKinds() {
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(suite("attention"));
        assertTrue(bounds.attention());
        assertEquals(List.of(MaskKind.values()), bounds.masks());
        ShapeDraw.Bounds plain = new ShapeDraw.Bounds(bounds.elements(), bounds.rows(), bounds.referenceScratchBytes());
        Set<MaskKind> kinds = new HashSet<>();
        boolean heads = false;
        boolean batches = false;
        boolean moreQueries = false;
        for (long secret = 0; secret < 300; secret++) {
            List<ShapeDraw.Drawn> drawn = both(secret, bounds);
            List<ShapeDraw.Drawn> sizes = both(secret, plain);
            for (int k = 0; k < drawn.size(); k++) {
                Shape s = drawn.get(k).shape();
                assertEquals(sizes.get(k).shape(), new Shape(s.rows(), s.cols()), "the layout leaves the size");
                assertTrue(Integer.bitCount(s.heads()) == 1 && s.heads() <= 32 && s.batch() <= 8, s::toString);
                kinds.add(s.mask());
                heads |= s.heads() > 1;
                batches |= s.batch() > 1;
                moreQueries |= s.queries() > s.keys();
            }
        }
        assertEquals(Set.of(MaskKind.values()), kinds);
        assertTrue(heads && batches && moreQueries, "heads, batches and more queries than keys are drawn");
    }
}
