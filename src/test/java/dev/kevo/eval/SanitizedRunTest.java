package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Which shapes the sanitizer runs a file on: every plan the suite reaches, each on the smallest shape reaching it. */
class SanitizedRunTest {

    private static List<ResolvedPlan> plans(KernelFile file, Suite suite) {
        return suite.shapes().stream().map(s -> PlanResolver.resolve(file, s, 132)).toList();
    }

    @Test
    void everyPlanOfEverySeedRunsOnItsSmallestShape() {
        Suite standard = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/standard.yaml"));
        for (Path seed : TestFiles.seeds()) {
            KernelFile file = ContractParser.read(seed);
            List<ResolvedPlan> plans = plans(file, standard);
            List<Integer> chosen = SanitizedRun.smallestPerPlan(plans, standard.shapes());
            List<Integer> planOf = chosen.stream().map(i -> plans.get(i).planIndex()).toList();
            assertEquals(plans.stream().map(ResolvedPlan::planIndex).distinct().sorted().toList(),
                    planOf.stream().sorted().toList(), seed + ": each plan the suite reaches, once");
            for (int s = 0; s < standard.shapes().size(); s++) {
                int plan = plans.get(s).planIndex();
                Shape ran = standard.shapes().get(chosen.get(planOf.indexOf(plan)));
                assertTrue(ran.elements() <= standard.shapes().get(s).elements(), seed + ": " + ran + " for "
                        + standard.shapes().get(s));
            }
            assertEquals(chosen.stream().sorted().toList(), chosen, "in the suite's order");
        }
    }

    @Test
    void onlineRunsOnOneShortRowOneMediumAndOneLongShape() {
        Suite standard = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/standard.yaml"));
        KernelFile online = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        List<Integer> chosen = SanitizedRun.smallestPerPlan(plans(online, standard), standard.shapes());
        assertEquals("32x128 1024x1000 1x1000000", chosen.stream().map(i -> standard.shapes().get(i).toString())
                .collect(Collectors.joining(" ")));
    }

    /**
     * The sanitizer runs every plan the evaluation's shapes reach, suite or drawn, on its smallest shape and on one
     * with odd columns: a plan no suite shape reaches (narrow rows) runs on its fresh shape, and a plan whose shapes all
     * have even columns on a nearby odd count the same plan takes.
     */
    @Test
    void everyPlanRunsOnItsSmallestShapeAndAnOddOneFreshShapesIncluded() {
        Suite standard = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/standard.yaml"));
        KernelFile online = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        java.util.Map<Shape, ResolvedPlan> planned = new java.util.LinkedHashMap<>();
        standard.shapes().forEach(s -> planned.put(s, PlanResolver.resolve(online, s, 132)));
        Shape narrow = new Shape(100, 77);
        planned.put(narrow, PlanResolver.resolve(online, narrow, 132));
        List<Shape> ran = SanitizedRun.perPlan(planned, s -> PlanResolver.resolve(online, s, 132).planIndex());
        assertTrue(ran.contains(new Shape(32, 128)), "the suite's smallest short rows: " + ran);
        assertTrue(ran.contains(narrow) || ran.stream().anyMatch(s -> s.cols() < 128 && s.elements() <= narrow.elements()),
                "the narrow rows only a fresh shape has: " + ran);
        java.util.Set<Integer> plans = new java.util.TreeSet<>();
        planned.values().forEach(p -> plans.add(p.planIndex()));
        for (int plan : plans) {
            List<Shape> of = ran.stream().filter(s -> PlanResolver.resolve(online, s, 132).planIndex() == plan)
                    .toList();
            assertTrue(of.stream().anyMatch(s -> s.cols() % 2 == 1), "plan " + (plan + 1) + " on odd columns: " + of);
            Shape smallest = planned.entrySet().stream().filter(e -> e.getValue().planIndex() == plan)
                    .map(java.util.Map.Entry::getKey).min(java.util.Comparator.comparingLong(Shape::elements))
                    .orElseThrow();
            assertTrue(of.contains(smallest), "plan " + (plan + 1) + " on its smallest shape " + smallest + ": " + of);
        }
    }

    /**
     * A plan whose smallest shape is hundreds of wide rows (held_rows' cluster plan, reached first by 512x262144) runs
     * under the sanitizer on as few rows as keep the plan, its columns unchanged: racecheck on the whole shape outran
     * the check phase's limit on the GPU. Where no fewer rows keep the plan, the shape itself runs.
     */
    @Test
    void aLargeShapeRunsOnFewerRowsOfTheSameColumnsAndPlan() {
        KernelFile held = ContractParser.read(TestFiles.root().resolve("seeds/softmax_backward/held_rows.cu"));
        java.util.function.ToIntFunction<Shape> planOf = s -> PlanResolver.resolve(held, s, 132).planIndex();
        Shape wide = new Shape(512, 262144);
        java.util.Map<Shape, ResolvedPlan> planned = new java.util.LinkedHashMap<>();
        planned.put(wide, PlanResolver.resolve(held, wide, 132));
        List<Shape> ran = SanitizedRun.perPlan(planned, planOf);
        assertEquals(2, ran.size(), "the plan's shape and an odd one: " + ran);
        for (Shape s : ran) {
            assertEquals(planOf.applyAsInt(wide), planOf.applyAsInt(s), s + " takes the same plan");
            assertTrue(s.rows() >= 2 && s.elements() <= SanitizedRun.SANITIZED_ELEMENTS, s + ": fewer rows");
            assertTrue(Math.abs(s.cols() - wide.cols()) <= 15, s + ": the same columns, or an odd count beside them");
        }
        Shape chooser = new Shape(300, 70000);
        assertEquals(chooser, SanitizedRun.fewerRows(chooser, 7, s -> s.rows() >= 300 ? 7 : 6),
                "a plan chosen by the row count keeps its rows");
    }
}
