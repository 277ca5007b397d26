package dev.kevo.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class ScreenTest {
    @Test
    void theBarIsTheBestsGeometricMeanFloorOverTheScreensShapesLessTheMargin() {
        CandidateResult best = CandidateResult.builder("best.cu", Verdict.PASS, 1).shapes(List.of(
                withFloor("4x100", 0.5), withFloor("8x200", 0.8), withFloor("16x300", 0.1))).build();
        Screen screen = Screen.against(best, "g1", List.of("4x100", "8x200"), 0.25);
        assertEquals(Math.sqrt(0.5 * 0.8) * 0.75, screen.floorBar(), 1e-12);
        assertEquals(Math.sqrt(0.5 * 0.8), screen.floorOver(best.shapes()), 1e-12);
        assertNull(Screen.against(best, "g1", List.of("32x32"), 0.25), "no timing there: no bar");
    }

    private static ShapeResult withFloor(String shape, double floor) {
        Stats copy = new Stats(5, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01);
        Stats kernel = new Stats(5, 0.01 / floor, 0.01 / floor, 0.01 / floor, 0.01 / floor, 0.01 / floor, 0.01 / floor);
        return ShapeResult.checked(shape, 1, 0, 0, null).withTiming(kernel, copy, copy, "kernel");
    }
}
