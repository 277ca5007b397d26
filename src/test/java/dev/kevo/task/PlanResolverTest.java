package dev.kevo.task;

import dev.kevo.data.Shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.config.SuiteFile;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PlanResolverTest {

    private static final Path ROOT = Path.of(System.getProperty("kevo.root", "."));

    static java.util.stream.Stream<Path> shippedKernels() throws java.io.IOException {
        return ContractParserTest.shippedKernels();
    }

    private static KernelFile file(String header) {
        return ContractParser.parse("plan.cu", null, "/*@kevo\n" + header + "\n*/\n");
    }

    private static KernelFile oneLaunch(String launchFields) {
        return file("{ \"plans\": [ { \"launches\": [ { \"kernel\": \"k\", " + launchFields + " } ] } ] }");
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in: " + message);
        }
    }

    private static final KernelFile TIERED = file("""
            { "workspace": "rows * 8",
              "plans": [
                { "when": "cols <= 512", "launches": [ { "kernel": "small", "grid": "cdiv(rows, 8)", "block": 256,
                                                          "args": ["x", "y", "rows", "cols"] } ] },
                { "when": "cols <= 4096", "launches": [ { "kernel": "medium", "grid": "rows", "block": 512,
                                                           "smem": "cols * 4", "args": ["x", "y", "cols"] } ] },
                { "when": "cols <= 8192", "launches": [ { "kernel": "shadowed", "grid": 1, "block": 1, "args": [] } ] },
                { "when": "rows >= sms", "launches": [
                    { "kernel": "stats", "grid": "rows", "block": 1024, "args": ["x", "ws", "cols"] },
                    { "kernel": "write", "grid": "min(rows * 4, sms * 8)", "block": 256, "args": ["x", "y", "ws", "rows", "cols"] } ] }
              ] }""");

    @Test
    void firstMatchingPlanWins() {
        ResolvedPlan small = PlanResolver.resolve(TIERED, new Shape(100, 512), 132);
        assertEquals(0, small.planIndex());
        assertEquals(List.of("small"), small.launches().stream().map(ResolvedPlan.Launch::kernel).toList());
        ResolvedPlan.Launch launch = small.launches().getFirst();
        assertEquals(13, launch.grid());
        assertEquals(256, launch.block());
        assertEquals(0, launch.smem());
        assertEquals(List.of(new KernelFile.Arg.Buffer("x"), new KernelFile.Arg.Buffer("y"), 100, 512), launch.args());

        ResolvedPlan medium = PlanResolver.resolve(TIERED, new Shape(100, 513), 132);
        assertEquals(1, medium.planIndex());
        assertEquals(513 * 4, medium.launches().getFirst().smem());
        assertEquals(100, medium.launches().getFirst().grid());

        // cols <= 8192 also holds for 4096, but plan 2 comes first
        assertEquals(1, PlanResolver.resolve(TIERED, new Shape(100, 4096), 132).planIndex());
        assertEquals(2, PlanResolver.resolve(TIERED, new Shape(100, 4097), 132).planIndex());
    }

    @Test
    void workspaceAndMultipleLaunchesAreEvaluated() {
        ResolvedPlan plan = PlanResolver.resolve(TIERED, new Shape(300, 10000), 132);
        assertEquals(3, plan.planIndex());
        assertEquals(2400, plan.workspaceBytes());
        assertEquals(2, plan.launches().size());
        ResolvedPlan.Launch stats = plan.launches().get(0);
        ResolvedPlan.Launch write = plan.launches().get(1);
        assertEquals("stats", stats.kernel());
        assertEquals(300, stats.grid());
        assertEquals(1024, stats.block());
        assertEquals(List.of(new KernelFile.Arg.Buffer("x"), new KernelFile.Arg.Buffer("ws"), 10000), stats.args());
        assertEquals("write", write.kernel());
        assertEquals(132 * 8, write.grid());  // min(1200, 1056)
        assertEquals(List.of(new KernelFile.Arg.Buffer("x"), new KernelFile.Arg.Buffer("y"), new KernelFile.Arg.Buffer("ws"), 300, 10000),
                write.args());
        // sms enters the expressions: min(1200, 8000), and 'rows >= sms' now fails for 300 rows
        assertEquals(1200, PlanResolver.resolve(TIERED, new Shape(300, 10000), 200).launches().get(1).grid());
        assertThrows(PlanException.class, () -> PlanResolver.resolve(TIERED, new Shape(300, 10000), 1000));
    }

    @Test
    void noPlanCoversTheShape() {
        PlanException e = assertThrows(PlanException.class,
                () -> PlanResolver.resolve(TIERED, new Shape(100, 10000), 132));
        assertContains(e.getMessage(), "plan.cu", "no plan covers shape 100x10000", "sms=132");
        assertEquals(KevoException.Kind.INPUT, e.kind());
    }

    @Test
    void gridMustBePositive() {
        KernelFile file = oneLaunch("\"grid\": \"rows - 5\", \"block\": 32, \"args\": []");
        assertEquals(1, PlanResolver.resolve(file, new Shape(6, 1), 1).launches().getFirst().grid());
        PlanException e = assertThrows(PlanException.class, () -> PlanResolver.resolve(file, new Shape(5, 1), 1));
        assertContains(e.getMessage(), "plan.cu: plan 1 launch 1 (k) 'grid'", "'rows - 5' = 0", "rows=5");
    }

    @Test
    void blockMustFitTheDevice() {
        KernelFile file = oneLaunch("\"grid\": 1, \"block\": \"cols * 2\", \"args\": []");
        assertEquals(1024, PlanResolver.resolve(file, new Shape(1, 512), 1).launches().getFirst().block());
        PlanException e = assertThrows(PlanException.class, () -> PlanResolver.resolve(file, new Shape(1, 1024), 1));
        assertContains(e.getMessage(), "launch 1 (k) 'block'", "= 2048", "[1, 1024]");
        KernelFile zero = oneLaunch("\"grid\": 1, \"block\": 0, \"args\": []");
        assertContains(assertThrows(PlanException.class, () -> PlanResolver.resolve(zero, new Shape(1, 1), 1))
                .getMessage(), "'block'", "= 0");
    }

    @Test
    void smemMustNotBeNegative() {
        KernelFile file = file("{ \"plans\": [ { \"launches\": ["
                + " { \"kernel\": \"first\", \"grid\": 1, \"block\": 32, \"args\": [] },"
                + " { \"kernel\": \"second\", \"grid\": 1, \"block\": 32, \"smem\": \"1024 - cols * 4\", \"args\": [] } ] } ] }");
        assertEquals(0, PlanResolver.resolve(file, new Shape(1, 256), 1).launches().get(1).smem());
        PlanException e = assertThrows(PlanException.class, () -> PlanResolver.resolve(file, new Shape(1, 257), 1));
        assertContains(e.getMessage(), "plan 1 launch 2 (second) 'smem'", "= -4");
    }

    @Test
    void intArgsMustFitAnInt() {
        KernelFile file = oneLaunch("\"grid\": 1, \"block\": 32, \"args\": [\"x\", \"rows * cols * 2\", \"0 - cols\"]");
        ResolvedPlan ok = PlanResolver.resolve(file, new Shape(1024, 1024), 1);
        assertEquals(List.of(new KernelFile.Arg.Buffer("x"), 2 * 1024 * 1024, -1024), ok.launches().getFirst().args());
        PlanException e = assertThrows(PlanException.class,
                () -> PlanResolver.resolve(file, new Shape(32768, 32768), 1));
        assertContains(e.getMessage(), "launch 1 (k) arg 2", "2147483648", String.valueOf(Integer.MAX_VALUE));
        KernelFile negative = oneLaunch("\"grid\": 1, \"block\": 32, \"args\": [\"0 - rows * cols * 2 - 1\"]");
        assertContains(assertThrows(PlanException.class,
                () -> PlanResolver.resolve(negative, new Shape(32768, 32768), 1)).getMessage(), "arg 1", "-2147483649");
        assertEquals(List.of(-2 * 32767 * 32768 - 1),
                PlanResolver.resolve(negative, new Shape(32767, 32768), 1).launches().getFirst().args());
    }

    @Test
    void workspaceMustBeNonNegativeAndBounded() {
        KernelFile negative = file("{ \"workspace\": \"cols - 10\", \"plans\": [ { \"launches\": [ { \"kernel\": \"k\","
                + " \"grid\": 1, \"block\": 32, \"args\": [\"ws\"] } ] } ] }");
        assertEquals(0, PlanResolver.resolve(negative, new Shape(1, 10), 1).workspaceBytes());
        assertContains(assertThrows(PlanException.class, () -> PlanResolver.resolve(negative, new Shape(1, 9), 1))
                .getMessage(), "'workspace'", "= -1");
        KernelFile huge = file("{ \"workspace\": \"rows * cols * 1024\", \"plans\": [ { \"launches\": [ { \"kernel\": \"k\","
                + " \"grid\": 1, \"block\": 32, \"args\": [\"ws\"] } ] } ] }");
        assertEquals(1L << 34, PlanResolver.resolve(huge, new Shape(1 << 12, 1 << 12), 1).workspaceBytes());
        assertContains(assertThrows(PlanException.class,
                () -> PlanResolver.resolve(huge, new Shape(1 << 12, (1 << 12) + 1), 1)).getMessage(), "'workspace'");
    }

    @Test
    void expressionFailuresNameThePlan() {
        KernelFile divide = file("{ \"plans\": [ { \"when\": \"cols < 4\", \"launches\": [ { \"kernel\": \"a\", \"grid\": 1,"
                + " \"block\": 32, \"args\": [] } ] }, { \"when\": \"rows / (cols - 8) > 0\", \"launches\": [ { \"kernel\": \"b\","
                + " \"grid\": 1, \"block\": 32, \"args\": [] } ] } ] }");
        assertEquals(1, PlanResolver.resolve(divide, new Shape(16, 9), 1).planIndex());
        assertContains(assertThrows(PlanException.class, () -> PlanResolver.resolve(divide, new Shape(16, 8), 1))
                .getMessage(), "plan.cu: plan 2 'when'", "division by zero");

        KernelFile numericWhen = file("{ \"plans\": [ { \"when\": \"cols\", \"launches\": [ { \"kernel\": \"a\","
                + " \"grid\": 1, \"block\": 32, \"args\": [] } ] } ] }");
        assertContains(assertThrows(PlanException.class, () -> PlanResolver.resolve(numericWhen, new Shape(1, 1), 1))
                .getMessage(), "plan 1 'when'", "not a condition");

        KernelFile boolGrid = oneLaunch("\"grid\": \"rows > 1\", \"block\": 32, \"args\": []");
        assertContains(assertThrows(PlanException.class, () -> PlanResolver.resolve(boolGrid, new Shape(2, 1), 1))
                .getMessage(), "launch 1 (k) 'grid'", "not an integer expression");
    }

    // ---- the shipped kernels against the standard suite ----

    private static final Pattern LAUNCH_BOUNDS = Pattern.compile(
            "extern \"C\" __global__ void __launch_bounds__\\((\\d+)\\) (\\w+)\\(");

    @ParameterizedTest
    @MethodSource("shippedKernels")
    void everyShippedKernelResolvesForEveryStandardShape(Path path) {
        KernelFile file = ContractParser.read(path);
        Suite standard = SuiteFile.load(ROOT.resolve("evaluator/suites/standard.yaml"));
        Map<String, Integer> bounds = new HashMap<>();
        Matcher m = LAUNCH_BOUNDS.matcher(file.source());
        while (m.find()) {
            bounds.put(m.group(2), Integer.parseInt(m.group(1)));
        }
        for (int sms : new int[] {132, 1, 1000}) {
            for (Shape shape : standard.shapes()) {
                ResolvedPlan plan = PlanResolver.resolve(file, shape, sms);
                String where = path.getFileName() + " " + shape + " sms=" + sms;
                assertFalse(plan.launches().isEmpty(), where);
                boolean usesWorkspace = false;
                for (ResolvedPlan.Launch launch : plan.launches()) {
                    assertTrue(file.kernelNames().contains(launch.kernel()), where);
                    assertTrue(launch.grid() >= 1 && launch.block() >= 1 && launch.block() <= 1024, where);
                    assertEquals(0, launch.block() % 32, where + ": seeds use whole warps");
                    Integer bound = bounds.get(launch.kernel());
                    if (bound != null) {
                        assertTrue(launch.block() <= bound, where + ": block " + launch.block()
                                + " over __launch_bounds__(" + bound + ") of " + launch.kernel());
                    }
                    usesWorkspace |= launch.args().contains(new KernelFile.Arg.Buffer("ws"));
                }
                if (usesWorkspace) {
                    assertTrue(plan.workspaceBytes() > 0, where + ": passes ws but asks for no workspace");
                }
            }
        }
    }
}
