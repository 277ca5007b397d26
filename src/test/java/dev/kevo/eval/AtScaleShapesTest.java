package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.data.Shape;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanException;
import dev.kevo.task.PlanResolver;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shapes past 2^31 elements that every plan gets at scale, found without a GPU. */
class AtScaleShapesTest {
    private static final String FILE = """
            /*@kevo
            { "plans": [
                { "when": "rows == 1", "launches": [ { "kernel": "k", "grid": "sms", "block": 256,
                  "args": ["x", "y", "rows", "cols"] } ] },
                { "when": "cols % 4 == 0", "launches": [ { "kernel": "k", "grid": "rows", "block": 256,
                  "args": ["x", "y", "rows", "cols"] } ] },
                { "when": "cols < 16", "launches": [ { "kernel": "k", "grid": "rows", "block": 32,
                  "args": ["x", "y", "rows", "cols"] } ] },
                { "when": "true", "launches": [ { "kernel": "k", "grid": "rows", "block": 128,
                  "args": ["x", "y", "rows", "cols"] } ] } ] }
            */
            extern "C" __global__ void k(const float* x, float* y, int rows, int cols) {}
            """;

    private static int planOf(KernelFile file, Shape shape) {
        try {
            return PlanResolver.resolve(file, shape, 132).planIndex();
        } catch (PlanException e) {
            return -1;
        }
    }

    @Test
    void eachPlanGetsAnAlignedAndAnOddShapePastTwoToThe31WhereOneReachesIt() {
        KernelFile file = ContractParser.parse("k.cu", null, FILE);
        Shape configured = new Shape(16385, 131073);
        Map<Integer, List<Shape>> checked = Map.of(0, List.of(new Shape(1, 1000000)),
                1, List.of(new Shape(4096, 32000), new Shape(32, 128)),
                2, List.of(new Shape(100, 7)),
                3, List.of(new Shape(1823, 781), configured));
        AtScaleShapes found = AtScaleShapes.find(checked, configured, s -> planOf(file, s));
        for (Shape s : found.shapes()) {
            if (s.rows() == 1) {
                assertTrue(s.cols() >= Integer.MAX_VALUE - 3, "one row: the longest an int holds: " + s);
                continue;
            }
            assertTrue(s.elements() > 1L << 31, "past 2^31 elements: " + s);
            assertTrue((long) (s.rows() - 1) * s.cols() >= 1L << 31, "the last row's offset too: " + s);
            assertTrue(s.rows() <= AtScaleShapes.MAX_ROWS, s.toString());
        }
        assertEquals(List.of(new Shape(1, 2147483644), new Shape(1, Integer.MAX_VALUE)), found.shapes().stream()
                .filter(s -> planOf(file, s) == 0).toList(), "the one-row plan at the longest rows, aligned and odd");
        List<Shape> plan2 = found.shapes().stream().filter(s -> planOf(file, s) == 1).toList();
        assertEquals(1, plan2.size(), "the aligned plan: one shape (no odd one takes it): " + found.shapes());
        assertTrue(plan2.getFirst().cols() % 4 == 0 && plan2.getFirst().rows() % 2 == 0, plan2.toString());
        assertEquals(32000, plan2.getFirst().cols(), "from the plan's widest checked rows");
        assertTrue(found.missing().get(1).contains("odd columns"), found.missing().toString());
        assertTrue(found.missing().get(2) != null, "rows of fewer than 16 columns need more than the rows allowed");
        assertTrue(found.shapes().stream().noneMatch(s -> planOf(file, s) == 3 && s.cols() % 2 == 1),
                "the configured shape is the last plan's odd one already: " + found.shapes());
        assertTrue(found.missing().get(3).contains("columns a multiple of 4"), "aligned rows take plan 2: "
                + found.missing());
    }
}
