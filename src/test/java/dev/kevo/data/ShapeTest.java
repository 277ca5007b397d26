package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ShapeTest {

    @ParameterizedTest
    @CsvSource({"4096x4096, 4096, 4096", "32x128, 32, 128", "1x10000000, 1, 10000000", "' 8X128256 ', 8, 128256",
            "1823 x 781, 1823, 781"})
    void parses(String text, int rows, int cols) {
        Shape shape = Shape.parse(text);
        assertEquals(rows, shape.rows());
        assertEquals(cols, shape.cols());
        assertEquals(rows + "x" + cols, shape.toString());
        assertEquals(shape, Shape.parse(shape.toString()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"4096", "4096*4096", "12by4", "1x2x3", "x5", "5x", "axb", "", "1.5x4", "4096 4096"})
    void rejectsMalformedText(String text) {
        KevoException e = assertThrows(KevoException.class, () -> Shape.parse(text));
        assertEquals("shape '" + text + "': expected ROWSxCOLS or BATCHxHEADSxQUERIESxKEYS, either followed by :MASK"
                + " (none, causal, padding, additive), e.g. 4096x4096 or 2x32x16x4096:causal", e.getMessage());
        assertEquals(KevoException.Kind.INPUT, e.kind());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0x5", "5x0", "-1x5", "5x-3"})
    void rejectsNonPositiveSizes(String text) {
        KevoException e = assertThrows(KevoException.class, () -> Shape.parse(text));
        assertTrue(e.getMessage().contains("rows and cols must be positive"), e::getMessage);
        assertTrue(e.getMessage().startsWith("shape " + text + ": "), e::getMessage);
    }

    @ParameterizedTest
    @ValueSource(strings = {"4096x4096x", "32x128xx"})
    void rejectsTrailingSeparators(String text) {
        assertThrows(KevoException.class, () -> Shape.parse(text));
    }

    @Test
    void holdsMoreThanAnIntOfElementsButNotMoreThanAnIntOfRowsOrCols() {
        assertEquals(1L << 31, Shape.parse("16384x131072").elements());
        assertEquals(2_147_631_105L, new Shape(16385, 131073).elements());
        assertThrows(KevoException.class, () -> Shape.parse("2x2147483648"));
    }

    @Test
    void elements() {
        assertEquals(50_331_648L, new Shape(4096, 12288).elements());
        assertEquals(1L, new Shape(1, 1).elements());
    }

    /** BATCHxHEADSxQUERIESxKEYS, with :MASK or without: rows = batch x heads x queries, cols = keys. */
    @ParameterizedTest
    @CsvSource({"2x32x16x4096, 1024, 4096, 2, 32, 16, none, 2x32x16x4096",
            "1x32x4096x4096:causal, 131072, 4096, 1, 32, 4096, causal, 1x32x4096x4096:causal",
            "' 4X8X1X131072:Padding ', 32, 131072, 4, 8, 1, padding, 4x8x1x131072:padding",
            "1x1x64x128:additive, 64, 128, 1, 1, 64, additive, 64x128:additive",
            "1x1x64x128, 64, 128, 1, 1, 64, none, 64x128", "64x128:causal, 64, 128, 1, 1, 64, causal, 64x128:causal"})
    void parsesAttentionShapes(String text, int rows, int cols, int batch, int heads, int queries, String mask,
                               String printed) {
        Shape shape = Shape.parse(text);
        assertEquals(rows, shape.rows());
        assertEquals(cols, shape.cols());
        assertEquals(cols, shape.keys());
        assertEquals(batch, shape.batch());
        assertEquals(heads, shape.heads());
        assertEquals(queries, shape.queries());
        assertEquals(MaskKind.byId(mask), shape.mask());
        assertEquals(printed, shape.toString());
        assertEquals(shape, Shape.parse(shape.toString()));
    }

    /** A plain shape is one batch entry of one head, masked by nothing: the same value whichever way it is written. */
    @Test
    void aPlainShapeIsOneHeadOfOneBatchEntry() {
        assertEquals(new Shape(64, 128), Shape.parse("1x1x64x128"));
        assertEquals(new Shape(64, 128), Shape.parse("64x128:none"));
        assertTrue(!new Shape(64, 128).equals(Shape.parse("2x1x32x128")), "the layout is part of the shape");
        assertTrue(!new Shape(64, 128).equals(Shape.parse("64x128:causal")), "so is the mask kind");
    }

    @ParameterizedTest
    @ValueSource(strings = {"2x32x16x4096:bogus", "64x128:causal:padding", "64x128:"})
    void rejectsAnUnknownMask(String text) {
        KevoException e = assertThrows(KevoException.class, () -> Shape.parse(text));
        assertTrue(e.getMessage().startsWith("shape '" + text + "': "), e::getMessage);
        assertEquals(KevoException.Kind.INPUT, e.kind());
    }

    @Test
    void rejectsNonPositiveAttentionSizesAndRowsPastAnInt() {
        KevoException zero = assertThrows(KevoException.class, () -> Shape.parse("2x0x16x4096"));
        assertEquals("shape 2x0x16x4096: batch, heads, queries and keys must be positive", zero.getMessage());
        KevoException big = assertThrows(KevoException.class, () -> Shape.parse("65536x65536x2x8"));
        assertTrue(big.getMessage().contains("must each fit an int"), big::getMessage);
        assertThrows(KevoException.class, () -> new Shape(10, 4, 3, 1, MaskKind.NONE), "10 rows are not 3 x a count");
    }

    /** Derived shapes (a twin, an odd row end, one past 2^31) keep the kind and what of the layout their rows divide into. */
    @Test
    void aResizedShapeKeepsItsKindAndWhatLayoutItsRowsAllow() {
        Shape shape = Shape.parse("4x8x16x4096:padding");
        assertEquals(Shape.parse("4x8x2x4097:padding"), shape.resized(64, 4097));
        assertEquals(Shape.parse("1x8x5x4096:padding"), shape.resized(40, 4096), "40 rows: no 4 x 8 split, heads stay");
        assertEquals(Shape.parse("7x4096:padding"), shape.resized(7, 4096));
        assertEquals(new Shape(3, 5), new Shape(64, 128).resized(3, 5));
        assertEquals(Shape.parse("4x8x16x4096:additive"), shape.withMask(MaskKind.ADDITIVE));
    }
}
