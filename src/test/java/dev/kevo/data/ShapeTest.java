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
        assertEquals("shape '" + text + "': expected ROWSxCOLS, e.g. 4096x4096", e.getMessage());
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
}
