package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Shape;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanException;
import dev.kevo.task.PlanResolver;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Plans no checked shape reached are found by a grid of shapes, each on its smallest. */
class PlanProbeTest {

    private static int planOf(KernelFile file, Shape shape) {
        try {
            return PlanResolver.resolve(file, shape, 132).planIndex();
        } catch (PlanException e) {
            return -1;
        }
    }

    @Test
    void everyPlanTheSuiteMissesIsFoundOnItsSmallestProbe() {
        KernelFile online = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(SuiteFile.load(TestFiles.root()
                .resolve("evaluator/suites/standard.yaml")).shapes());
        List<Shape> found = PlanProbe.unreached(Set.of(), bounds, s -> planOf(online, s));
        assertEquals(online.plans().size(), found.size(), "every plan of online.cu takes some shape: " + found);
        for (int p = 0; p < found.size(); p++) {
            assertEquals(p, planOf(online, found.get(p)), "in plan order: " + found);
            assertTrue(bounds.fit(found.get(p)), found.get(p) + " fits the suite's buffers");
        }
        assertEquals(new Shape(1, 1), found.getFirst(), "the smallest shape of the short-row plan");
        assertEquals(List.of(found.get(1)), PlanProbe.unreached(Set.of(0, 2), bounds, s -> planOf(online, s)),
                "only the plans not reached yet");
    }

    @Test
    void aTwinIsTheFewestRowsOfTheSameColumnsThatTakeTheSamePlan() {
        KernelFile online = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(SuiteFile.load(TestFiles.root()
                .resolve("evaluator/suites/standard.yaml")).shapes());
        Shape drawn = new Shape(117712, 401);
        int plan = planOf(online, drawn);
        Shape twin = PlanProbe.twin(drawn, plan, bounds, s -> planOf(online, s));
        assertEquals(new Shape(1, 401), twin, "online.cu's plans depend on the columns only");
        // A plan for many rows only: no fewer rows take it, so the shape is its own twin.
        assertEquals(drawn, PlanProbe.twin(drawn, plan, bounds, s -> s.rows() >= 1000 ? plan : plan + 1));
        assertEquals(new Shape(16, 401), PlanProbe.twin(drawn, plan, bounds, s -> s.rows() >= 9 ? plan : -1),
                "the fewest rows tried that take it");
    }

    /** Plans may choose by mask kind: the grid is tried under each kind the suite has, and a twin keeps its shape's. */
    @Test
    void probesAndTwinsKeepTheSuitesMaskKinds() {
        ShapeDraw.Bounds bounds = ShapeDraw.Bounds.of(List.of(Shape.parse("2x4x64x4096:causal"),
                Shape.parse("2x4x64x4096:additive")));
        assertEquals(List.of(MaskKind.CAUSAL, MaskKind.ADDITIVE), bounds.masks());
        // plan 0 for causal rows, plan 1 for additive rows of 1000 columns or more, nothing else
        java.util.function.ToIntFunction<Shape> plans = s -> s.mask() == MaskKind.CAUSAL ? 0
                : s.mask() == MaskKind.ADDITIVE && s.cols() >= 1000 ? 1 : -1;
        List<Shape> found = PlanProbe.unreached(Set.of(0), bounds, plans);
        assertEquals(1, found.size(), found::toString);
        assertEquals(MaskKind.ADDITIVE, found.getFirst().mask());
        Shape drawn = Shape.parse("4x8x16x4096:additive");
        Shape twin = PlanProbe.twin(drawn, 1, bounds, plans);
        assertEquals(MaskKind.ADDITIVE, twin.mask(), "a twin of the same plan, so of the same kind");
        assertTrue(twin.rows() < drawn.rows(), twin::toString);
    }
}
