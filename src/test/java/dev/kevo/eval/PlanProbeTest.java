package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
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
}
