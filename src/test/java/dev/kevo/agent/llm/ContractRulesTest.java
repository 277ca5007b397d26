package dev.kevo.agent.llm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.kevo.TestFiles;
import dev.kevo.agent.ProposalRequest;
import dev.kevo.agent.RepairRequest;
import dev.kevo.agent.TaskContext;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.BeyondSuite;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.ModelSpec;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.ShapeRegime;
import dev.kevo.data.Tolerance;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.Expr;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ParameterTypes;
import dev.kevo.task.PlanException;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.task.SourcePolicy;
import dev.kevo.task.TargetLimits;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The rules a model is told are the rules it is judged by. Each limit is read from the rendered system prompt, as the
 * model reads it, and the real checker is run at it and one past it: a limit the prompt does not state fails here,
 * and so does one it states wrongly. Then every number left in the prompt's own text must be one of those: a limit
 * written into the prompt by hand, which the checker does not hold, fails too.
 */
class ContractRulesTest {

    private static final int SMS = 132;
    private static final Shape SHAPE = Shape.parse("4x8");

    /** What each limit's sentence looks like in the prompt; the numbers it captures are what the tests check. */
    private static final Pattern KNOBS = Pattern.compile("At most (\\d+) knobs");
    private static final Pattern VALUES = Pattern.compile("At most (\\d+) values a knob");
    private static final Pattern CHOICE_MACRO = Pattern.compile("also defines `EXP_EXP2` as (\\d+)");
    private static final Pattern LENGTH = Pattern.compile("at most (\\d+) characters");
    private static final Pattern DEPTH = Pattern.compile("at most (\\d+) levels deep");
    private static final Pattern FILE_SIZE = Pattern.compile("A kernel file is at most (\\d+) bytes");
    private static final Pattern GRID = Pattern.compile("`grid` must come to (\\d+) to (\\d+) blocks");
    private static final Pattern BLOCK = Pattern.compile("`block` to (\\d+) to (\\d+) threads");
    private static final Pattern SMEM_DEFAULT = Pattern.compile("`smem` is the dynamic shared memory in bytes \\(default (\\d+)\\)");
    private static final Pattern WORKSPACE = Pattern.compile("`workspace` is (\\d+) to (\\d+) bytes of scratch memory passed as `ws` \\(default (\\d+)\\)");
    private static final Pattern CLUSTER = Pattern.compile("`\"cluster\": N` \\(an expression, default (\\d+)\\) launches thread-block clusters of N consecutive blocks through `cuLaunchKernelEx`: N from (\\d+) to (\\d+), a power of two or not");
    private static final Pattern PORTABLE = Pattern.compile("Past (\\d+) blocks \\(the portable size\\)");
    private static final Pattern SHARED = Pattern.compile("Shared memory per block, static and `smem` together, at most (\\d+) bytes on this device");
    private static final Pattern TOLERANCE = Pattern.compile("Per element \\|y - ref\\| <= (\\S+) \\+ (\\S+) \\|ref\\| \\(plus one unit in the last place of y's type\\), and relative L2 error at most (\\S+) \\(");
    private static final Pattern HELD_OUT = Pattern.compile("A champion is also checked on (\\d+) held-out shapes");
    private static final Pattern SM_COUNTS = Pattern.compile("with every plan resolved again for ([\\d, ]+) multiprocessors");
    private static final Pattern AT_SCALE = Pattern.compile("at (\\d+)x(\\d+), past 2\\^31 elements");
    private static final Pattern INPUT_SETS = Pattern.compile("the next of (\\d+) input sets is used");
    private static final List<Pattern> LIMITS = List.of(KNOBS, VALUES, CHOICE_MACRO, LENGTH, DEPTH, FILE_SIZE, GRID, BLOCK,
            SMEM_DEFAULT, WORKSPACE, CLUSTER, PORTABLE, SHARED, TOLERANCE, HELD_OUT, SM_COUNTS, AT_SCALE, INPUT_SETS);

    /**
     * Words with digits that state no limit: widths of types and of accesses, the index range of a 32-bit int, what
     * a floor fraction of 1.0 means. Anything else with a digit in the prompt's own text must be a limit above.
     */
    private static final List<String> NOT_LIMITS = List.of("32-bit", "64-bit", "16-byte", "1-D", "2^31", "1.0 means");

    private static String system(TaskContext context) {
        ProposalRequest request = ProposalRequest.builder(Fixtures.parent(), new SplittableRandom(1)).context(context)
                .inspirations(List.of(Fixtures.inspiration())).build();
        return PromptBuilderTest.builder(Fixtures.IMPROVE_ONLY).forProposal(request).system();
    }

    private static String system() {
        return system(Fixtures.CONTEXT);
    }

    /** The numbers {@code pattern} captures in the prompt, where it matches exactly once. */
    private static long[] stated(Pattern pattern) {
        String prompt = system();
        Matcher m = pattern.matcher(prompt);
        if (!m.find()) {
            fail("the prompt does not state /" + pattern + "/:\n" + prompt);
        }
        long[] numbers = IntStream.rangeClosed(1, m.groupCount()).mapToLong(i -> Long.parseLong(m.group(i))).toArray();
        assertFalse(m.find(), "stated once: " + pattern);
        return numbers;
    }

    private static long stated1(Pattern pattern) {
        return stated(pattern)[0];
    }

    /** A kernel file of one launch of {@code k}, with more header keys before {@code plans}. */
    private static String source(String headerKeys, String launchFields) {
        return "/*@kevo\n{ " + headerKeys + (headerKeys.isEmpty() ? "" : ", ") + "\"plans\": [ { \"launches\": [ { "
                + "\"kernel\": \"k\", " + launchFields + " } ] } ] }\n*/\n"
                + "extern \"C\" __global__ void k(const KEVO_X* x, KEVO_Y* y, int rows, int cols) {}\n";
    }

    private static KernelFile parse(String headerKeys, String launchFields) {
        return ContractParser.parse("k.cu", null, source(headerKeys, launchFields));
    }

    private static ResolvedPlan.Launch resolve(String launchFields) {
        return PlanResolver.resolve(parse("", launchFields), SHAPE, SMS).launches().getFirst();
    }

    private static String knobs(int count) {
        return "\"knobs\": {" + IntStream.range(0, count).mapToObj(i -> "\"K" + i + "\": { \"values\": [1, 2], "
                + "\"value\": 1 }").collect(Collectors.joining(", ")) + "}";
    }

    @Test
    void theKnobLimitIsTheParsers() {
        int n = (int) stated1(KNOBS);
        parse(knobs(n), "\"grid\": 1, \"block\": 32, \"args\": []");
        ContractException e = assertThrows(ContractException.class,
                () -> parse(knobs(n + 1), "\"grid\": 1, \"block\": 32, \"args\": []"));
        assertTrue(e.getMessage().contains((n + 1) + " knobs"), e.getMessage());
    }

    @Test
    void theValuesLimitIsTheParsers() {
        long n = stated1(VALUES);
        String launch = "\"grid\": 1, \"block\": 32, \"args\": []";
        parse("\"knobs\": { \"A\": { \"range\": [1, " + n + "], \"value\": 1 } }", launch);
        assertThrows(ContractException.class,
                () -> parse("\"knobs\": { \"A\": { \"range\": [1, " + (n + 1) + "], \"value\": 1 } }", launch));
        String many = java.util.stream.LongStream.rangeClosed(1, n + 1).mapToObj(Long::toString)
                .collect(Collectors.joining(", "));
        assertThrows(ContractException.class,
                () -> parse("\"knobs\": { \"A\": { \"values\": [" + many + "], \"value\": 1 } }", launch));
    }

    @Test
    void aChoiceDefinesItsValuesMacroAsTheCompilerIsTold() {
        KernelFile file = parse("\"knobs\": { \"EXP\": { \"values\": [\"EXPF\", \"EXP2\"], \"value\": \"EXP2\" } }",
                "\"grid\": 1, \"block\": 32, \"args\": []");
        assertEquals(Long.toString(stated1(CHOICE_MACRO)), file.macros(Precision.FP32).get("EXP_EXP2"));
    }

    @Test
    void knobNamesAreRejectedExactlyAsThePromptSays() {
        String prompt = system();
        String launch = "\"grid\": 1, \"block\": 32, \"args\": []";
        Matcher rule = Pattern.compile("upper-case C identifier \\(`([^`]+)`\\) that does not start with `(\\w+)`, "
                + "is none of `kevo.h`'s macros \\(([^)]+)\\) and none of the expression names in capitals "
                + "\\(([^)]+)\\)").matcher(prompt);
        assertTrue(rule.find(), prompt);
        Pattern name = Pattern.compile(rule.group(1));
        List<String> reserved = new ArrayList<>();
        reserved.add(rule.group(2) + "BLOCK");
        reserved.addAll(Arrays.asList(rule.group(3).split(", ")));
        reserved.addAll(Arrays.asList(rule.group(4).split(", ")));
        for (String bad : reserved) {
            assertThrows(ContractException.class, () -> parse("\"knobs\": { \"" + bad + "\": { \"values\": [1], "
                    + "\"value\": 1 } }", launch), bad);
        }
        for (String candidate : List.of("BLOCK", "ROWS_PER_WARP", "V4", "block", "Block", "_BLOCK", "4BLOCK")) {
            boolean accepted;
            try {
                parse("\"knobs\": { \"" + candidate + "\": { \"values\": [1], \"value\": 1 } }", launch);
                accepted = true;
            } catch (ContractException e) {
                accepted = false;
            }
            assertEquals(name.matcher(candidate).matches(), accepted, candidate);
        }
        // every macro kevo.h defines that a knob could redefine is one the prompt names
        for (String macro : Pattern.compile("(?m)^#define (\\w+)").matcher(dev.kevo.cuda.Prelude.resource(
                dev.kevo.cuda.Prelude.class, dev.kevo.cuda.Prelude.NAME)).results().map(r -> r.group(1)).toList()) {
            assertTrue(macro.startsWith(rule.group(2)) || reserved.contains(macro), "kevo.h's " + macro);
        }
    }

    @Test
    void expressionLimitsAreTheParsers() {
        int length = (int) stated1(LENGTH);
        Expr.parse("1" + " ".repeat(length - 1));
        assertThrows(IllegalArgumentException.class, () -> Expr.parse("1" + " ".repeat(length)));
        int depth = (int) stated1(DEPTH);
        Expr.parse("1" + " + 1".repeat(depth - 1));  // a + b + c is three levels
        assertThrows(IllegalArgumentException.class, () -> Expr.parse("1" + " + 1".repeat(depth)));
    }

    @Test
    void theFileSizeLimitIsTheParsers() {
        int limit = (int) stated1(FILE_SIZE);
        String base = source("", "\"grid\": 1, \"block\": 32, \"args\": []");
        String padded = base + "//" + "x".repeat(limit - base.length() - 3) + "\n";
        assertEquals(limit, padded.length());
        ContractParser.parse("k.cu", null, padded);
        ContractException e = assertThrows(ContractException.class,
                () -> ContractParser.parse("k.cu", null, padded + " "));
        assertTrue(e.getMessage().contains("byte limit"), e.getMessage());
    }

    @Test
    void launchBoundsAreTheResolvers() {
        long[] grid = stated(GRID);
        resolve("\"grid\": " + grid[0] + ", \"block\": 32, \"args\": []");
        resolve("\"grid\": \"" + grid[1] + "\", \"block\": 32, \"args\": []");
        assertThrows(PlanException.class, () -> resolve("\"grid\": " + (grid[0] - 1) + ", \"block\": 32, \"args\": []"));
        assertThrows(PlanException.class, () -> resolve("\"grid\": \"" + (grid[1] + 1) + "\", \"block\": 32, \"args\": []"));
        long[] block = stated(BLOCK);
        resolve("\"grid\": 1, \"block\": " + block[0] + ", \"args\": []");
        resolve("\"grid\": 1, \"block\": " + block[1] + ", \"args\": []");
        assertThrows(PlanException.class, () -> resolve("\"grid\": 1, \"block\": " + (block[0] - 1) + ", \"args\": []"));
        assertThrows(PlanException.class, () -> resolve("\"grid\": 1, \"block\": " + (block[1] + 1) + ", \"args\": []"));
        assertEquals(stated1(SMEM_DEFAULT), resolve("\"grid\": 1, \"block\": 32, \"args\": []").smem());
        long[] workspace = stated(WORKSPACE);
        String launch = "\"grid\": 1, \"block\": 32, \"args\": []";
        assertEquals(workspace[2], PlanResolver.resolve(parse("", launch), SHAPE, SMS).workspaceBytes());
        PlanResolver.resolve(parse("\"workspace\": \"" + workspace[0] + "\"", launch), SHAPE, SMS);
        PlanResolver.resolve(parse("\"workspace\": \"" + workspace[1] + "\"", launch), SHAPE, SMS);
        assertThrows(PlanException.class, () -> PlanResolver.resolve(parse("\"workspace\": \"" + (workspace[0] - 1)
                + "\"", launch), SHAPE, SMS));
        assertThrows(PlanException.class, () -> PlanResolver.resolve(parse("\"workspace\": \"" + (workspace[1] + 1)
                + "\"", launch), SHAPE, SMS));
    }

    @Test
    void clusterSizesAreTheResolversAndTheDevicesPortableSize() {
        long[] cluster = stated(CLUSTER);
        assertEquals(cluster[0], resolve("\"grid\": 6, \"block\": 32, \"args\": []").cluster());
        resolve("\"grid\": " + cluster[1] + ", \"block\": 32, \"cluster\": " + cluster[1] + ", \"args\": []");
        resolve("\"grid\": " + 2 * cluster[2] + ", \"block\": 32, \"cluster\": " + cluster[2] + ", \"args\": []");
        assertThrows(PlanException.class, () -> resolve("\"grid\": 64, \"block\": 32, \"cluster\": "
                + (cluster[1] - 1) + ", \"args\": []"));
        assertThrows(PlanException.class, () -> resolve("\"grid\": " + 2 * (cluster[2] + 1) + ", \"block\": 32, "
                + "\"cluster\": " + (cluster[2] + 1) + ", \"args\": []"));
        // "a power of two or not": 3 is accepted; "the grid a multiple of N"; "not with cooperative"
        assertEquals(3, resolve("\"grid\": 6, \"block\": 32, \"cluster\": 3, \"args\": []").cluster());
        assertThrows(PlanException.class, () -> resolve("\"grid\": 7, \"block\": 32, \"cluster\": 3, \"args\": []"));
        assertThrows(PlanException.class, () -> resolve("\"grid\": 6, \"block\": 32, \"cluster\": 3, "
                + "\"cooperative\": true, \"args\": []"));
        // Past the portable size the kernel is opted in on the GPU (Gpu.allowClusterSize), which needs one to run.
        assertEquals(Gpu.PORTABLE_CLUSTER, stated1(PORTABLE));
    }

    @Test
    void theSharedMemoryLimitIsTheTargetsAndTheDevicesOptIn() {
        int limit = (int) stated1(SHARED);
        String arch = Fixtures.H100.arch();
        TargetLimits target = TargetLimits.of(arch).orElseThrow();
        assertTrue(target.violation(resolve("\"grid\": 1, \"block\": 32, \"smem\": " + limit + ", \"args\": []"), 0,
                arch).isEmpty());
        assertTrue(target.violation(resolve("\"grid\": 1, \"block\": 32, \"smem\": " + (limit + 1)
                + ", \"args\": []"), 0, arch).isPresent());
        // on the GPU, PlanRunner.prepare holds the same launch to the device's own opt-in limit
        assertTrue(limit <= Fixtures.H100.maxSharedPerBlockOptin());
    }

    @Test
    void theToleranceIsTheOperatorsAndTheTimingTheSettings() {
        Matcher m = TOLERANCE.matcher(system());
        assertTrue(m.find(), system());
        double absolute = Double.parseDouble(m.group(1));
        double relative = Double.parseDouble(m.group(2));
        Tolerance tolerance = Fixtures.CONTEXT.task().tolerance(Fixtures.CONTEXT.settings());
        for (double ref : new double[] {0, 0.5, 1e-3}) {
            double bound = absolute + relative * ref;
            assertTrue(tolerance.elementOk(ref + 0.99 * bound, ref), "within at " + ref);
            assertFalse(tolerance.elementOk(ref + 1.01 * bound, ref), "past at " + ref);
        }
        assertEquals(tolerance.relativeL2(), Double.parseDouble(m.group(3)));
        MeasurementMethod timing = Fixtures.CONTEXT.settings().measurement();
        assertEquals(timing.inputSets(), stated1(INPUT_SETS));
        assertTrue(system().contains("before every timed launch L2 is flushed"));
        // another campaign's settings are stated as they are
        EvalSettings other = EvalSettings.builder().measurement(MeasurementMethod.builder().flushL2(false).inputSets(2)
                .build()).tolerance(Tolerance.builder().absolute(2e-6).build()).build();
        TaskContext c = Fixtures.CONTEXT;
        String prompt = system(new TaskContext(c.device(), c.suite(), c.shapes(), c.task(), c.baseline(), other));
        assertTrue(prompt.contains("before every timed launch L2 is not flushed, the next of 2 input sets"), prompt);
        assertTrue(prompt.contains("|y - ref| <= 2e-6 + 1e-4 |ref|"), prompt);
    }

    /** A log_softmax campaign's prompt states log_softmax's task, tensors and tolerance, and allows its -inf. */
    @Test
    void aLogSoftmaxPromptStatesItsOperator() {
        TaskContext c = Fixtures.CONTEXT;
        Task task = new Task(Operators.LOG_SOFTMAX, Precision.FP32);
        String prompt = system(new TaskContext(c.device(), c.suite(), c.shapes(), task, c.baseline(),
                c.settings()));
        assertTrue(prompt.contains(task.op().taskText().strip().lines().findFirst().orElseThrow()), prompt);
        Matcher m = TOLERANCE.matcher(prompt);
        assertTrue(m.find(), prompt);
        Tolerance tolerance = task.tolerance(c.settings());
        assertEquals(tolerance.absolute(), Double.parseDouble(m.group(1)));
        assertEquals(tolerance.relative(), Double.parseDouble(m.group(2)));
        assertEquals(tolerance.relativeL2(), Double.parseDouble(m.group(3)));
        // The harness holds an infinite reference to exactly that infinity: the prompt must not forbid it.
        assertFalse(prompt.contains("NaN or Inf"), prompt);
        assertTrue(prompt.contains("an infinity is right only where ref is that infinity"), prompt);
    }

    /**
     * A masked_softmax campaign's prompt passes every argument its kernels get, typed as the parameter checks take
     * them (the int32 lengths as int*, the scale as float), and the attention layout's plan variables.
     */
    @Test
    void aMaskedSoftmaxPromptStatesItsArgumentsAndPlanVariables() {
        TaskContext c = Fixtures.CONTEXT;
        Task task = new Task(Operators.byId("masked_softmax"), Precision.BF16);
        String prompt = system(new TaskContext(c.device(), c.suite(), c.shapes(), task, c.baseline(),
                c.settings()));
        assertTrue(prompt.contains("`lengths` (`const int*`, one per batch entry"), prompt);
        assertTrue(prompt.contains("`mask` (`const KEVO_X*`, batch x queries x keys"), prompt);
        assertTrue(prompt.contains("`scale` (`float`, drawn anew for every input case)"), prompt);
        assertFalse(prompt.contains("KEVO_INT32"), prompt);
        for (String variable : task.op().planVariables()) {
            assertTrue(prompt.contains("`" + variable + "`"), variable);
        }
        assertTrue(prompt.contains("1 causal"), prompt);
        assertFalse(system().contains("`mask_kind`"), "softmax's prompt has no attention layout");
    }

    @Test
    void theShapesBeyondTheSuiteAreTheSettingsAndEachKindIsItsCondition() {
        String prompt = system();
        BeyondSuite beyond = Fixtures.CONTEXT.settings().beyondSuite();
        for (ShapeRegime regime : java.util.stream.Stream.concat(beyond.fresh().stream(),
                beyond.heldOutRegimes().stream()).distinct().toList()) {
            Matcher m = Pattern.compile(Pattern.quote(regime.id()) + " \\(`([^`]+)`\\)").matcher(prompt);
            assertTrue(m.find(), regime.id() + " in " + prompt);
            Expr condition = Expr.parse(m.group(1));
            for (long rows = 1; rows <= 9; rows++) {
                for (long cols = 1; cols <= 300; cols++) {
                    assertEquals(regime.holds(rows, cols), condition.evalBoolean(new Expr.Env(rows, cols, SMS,
                            Map.of())), regime.id() + " at " + rows + "x" + cols);
                }
            }
        }
        assertEquals(beyond.heldOut(), stated1(HELD_OUT));
        Matcher counts = SM_COUNTS.matcher(prompt);
        assertTrue(counts.find(), prompt);
        assertEquals(beyond.smCounts(), Arrays.stream(counts.group(1).split(", ")).map(Integer::valueOf).toList());
        long[] atScale = stated(AT_SCALE);
        assertEquals(beyond.atScale(), atScale[0] + "x" + atScale[1]);
        assertTrue(atScale[0] * atScale[1] > (1L << 31));
    }

    /** The operators and functions the prompt lists are the ones the parser takes, where it says they may be used. */
    @Test
    void theExpressionGrammarIsTheParsers() {
        String prompt = system();
        Matcher m = Pattern.compile("integer knobs, with (.+?) \\(`/` and `%` truncate toward zero.*?parentheses and "
                + "(.+?) \\(`cdiv` divides rounding up\\).*?compares integers with (.+?) and combines comparisons "
                + "with (.+?), `true` and `false`").matcher(prompt);
        assertTrue(m.find(), prompt);
        List<String> arithmetic = codes(m.group(1));
        List<String> comparisons = codes(m.group(3));
        List<String> logic = codes(m.group(4));
        Expr.Env env = new Expr.Env(10, 20, SMS, Map.of());
        for (String op : arithmetic) {
            Expr.parse("7 " + op + " 2").evalLong(env);
            // RuntimeException, not IllegalArgumentException: / and % (and cdiv) answer a condition, or a fraction, with
            // a NullPointerException from Expr.integer (it passes EvalEx no token), which PlanResolver does not catch
            assertThrows(RuntimeException.class, () -> Expr.parse("(1 < 2) " + op + " 2").evalLong(env),
                    "arithmetic on a condition: " + op);
        }
        assertEquals(-3, Expr.parse("-7 / 2").evalLong(env));
        assertEquals(-1, Expr.parse("-7 % 2").evalLong(env));
        assertEquals(4, Expr.parse("cdiv(7, 2)").evalLong(env));
        assertEquals(-10, Expr.parse("-rows").evalLong(env));
        for (String op : comparisons) {
            Expr.parse("rows " + op + " 2").evalBoolean(env);
            assertThrows(IllegalArgumentException.class, () -> Expr.parse("1 " + op + " 2 " + op + " 3")
                    .evalBoolean(env), "comparisons do not chain: " + op);
            assertThrows(PlanException.class, () -> resolve("\"grid\": \"rows " + op + " 2\", \"block\": 32, "
                    + "\"args\": []"), "a condition is no grid: " + op);
        }
        for (String op : logic) {
            // true at the shape and at the knobs' values (1), so that it picks the plan and the rule holds
            String condition = op.equals("!") ? "!(rows < 1)" : "rows > 0 " + op + " cols > 0";
            assertTrue(Expr.parse(condition).evalBoolean(env), condition);
            KernelFile file = parse("\"knobs\": { \"A\": { \"values\": [1, 2], \"value\": 1 }, \"B\": { \"values\": "
                    + "[1, 2], \"value\": 1 } }, \"knob_rule\": \"" + condition.replace("rows", "A").replace("cols", "B")
                    + "\"", "\"grid\": 1, \"block\": 32, \"args\": []");
            assertTrue(file.knobs().ruleHolds(), op);
            assertEquals(1, PlanResolver.resolve(ContractParser.parse("k.cu", null, source("",
                    "\"grid\": 1, \"block\": 32, \"args\": []").replace("\"plans\": [ { ", "\"plans\": [ { \"when\": \""
                    + condition + "\", ")), SHAPE, SMS).launches().getFirst().grid(), "in when: " + op);
        }
        List<String> listed = new ArrayList<>(arithmetic);
        listed.addAll(comparisons);
        listed.addAll(logic);
        for (String op : List.of("^", "**", "<<", ">>", "&", "|", "?", "<>", "=", "~", "+", "-", "*", "/", "%", "<",
                "<=", ">", ">=", "==", "!=", "&&", "||", "!")) {
            boolean parses;
            try {
                Expr.parse(op.equals("!") || op.equals("~") ? op + "(1 < 2)" : "2 " + op + " 3");
                parses = true;
            } catch (IllegalArgumentException e) {
                parses = false;
            }
            assertEquals(listed.contains(op), parses, "listed exactly when the parser takes it: " + op);
        }
        Map<String, String> functions = new LinkedHashMap<>();
        Pattern.compile("`(\\w+)\\(([a-z., ]+)\\)`").matcher(m.group(2)).results()
                .forEach(r -> functions.put(r.group(1), r.group(2)));
        assertFalse(functions.isEmpty(), m.group(2));
        for (Map.Entry<String, String> f : functions.entrySet()) {
            List<String> params = Arrays.asList(f.getValue().split(", "));
            int fixed = (int) params.stream().filter(p -> !p.equals("...")).count();
            String args = String.join(", ", java.util.Collections.nCopies(fixed, "3"));
            Expr.parse(f.getKey() + "(" + args + ")").evalLong(env);
            assertThrows(IllegalArgumentException.class, () -> Expr.parse(f.getKey() + "("
                    + String.join(", ", java.util.Collections.nCopies(fixed - 1, "3")) + ")"), f.getKey());
            boolean more;
            try {
                Expr.parse(f.getKey() + "(" + args + ", 3)");
                more = true;
            } catch (IllegalArgumentException e) {
                more = false;
            }
            assertEquals(params.contains("..."), more, f.getKey() + " takes more arguments");
        }
        for (String function : List.of("abs", "pow", "floor", "ceil", "sqrt", "log2", "clamp", "if")) {
            assertThrows(IllegalArgumentException.class, () -> Expr.parse(function + "(1, 2)"), function);
            assertFalse(functions.containsKey(function));
        }
    }

    private static List<String> codes(String text) {
        return Pattern.compile("`([^`]+)`").matcher(text).results().map(r -> r.group(1)).toList();
    }

    @Test
    void theSourceRulesAreThePolicysAndItsMacrosAreRejected() {
        String prompt = system();
        Matcher m = Pattern.compile("tests which compiler builds it \\((.+?), a trailing \\* meaning any name that "
                + "starts so\\)").matcher(prompt);
        assertTrue(m.find(), prompt);
        List<String> macros = codes(m.group(1));
        for (String macro : macros) {
            String used = macro.replace("*", "_MAJOR__");
            assertTrue(SourcePolicy.violation("#if " + used + "\n#endif\n").isPresent(), used);
        }
        assertTrue(prompt.contains("(__CUDA_ARCH__ may be tested"), prompt);
        assertTrue(SourcePolicy.violation("#if __CUDA_ARCH__ >= 900\n#endif\n").isEmpty());
        for (String known : List.of("__CUDACC_RTC__", "__NVCC__", "__CUDACC_VER_MAJOR__", "__clang__", "__GNUC__",
                "__CUDA_FTZ", "CUDART_VERSION", "_MSC_VER")) {
            assertTrue(SourcePolicy.violation("int v = " + known + ";\n").isPresent(), known);
            assertTrue(macros.stream().anyMatch(p -> p.endsWith("*") ? known.startsWith(p.substring(0, p.length() - 1))
                    : known.equals(p)), "the prompt names " + known);
        }
        for (String rule : SourcePolicy.rules()) {
            String shown = rule.substring(0, rule.indexOf('{') < 0 ? rule.length() : rule.indexOf('{'));
            assertTrue(prompt.contains("  - " + shown), "rule stated: " + rule);
        }
    }

    /** What the compiler is told, and what a header's dtype means, is what the evaluator does. */
    @Test
    void theCompileOptionsAndDtypesAreTheFilesMacrosAndTheParsers() {
        for (Precision dtype : Precision.SUPPORTED) {
            TaskContext c = Fixtures.CONTEXT;
            String prompt = system(new TaskContext(c.device(), c.suite(), c.shapes(), Task.softmax(dtype),
                    c.baseline()));
            Matcher m = Pattern.compile("these options only: `" + Pattern.quote(Nvrtc.STANDARD)
                    + " --gpu-architecture=(\\w+)` \\(the device's own\\), `([^`]+)`").matcher(prompt);
            assertTrue(m.find(), prompt);
            assertEquals(c.device().arch(), m.group(1));
            Map<String, String> told = new LinkedHashMap<>();
            Pattern.compile("-D(\\w+)=(\\w+)").matcher(m.group(2)).results().forEach(r -> told.put(r.group(1),
                    r.group(2)));
            KernelFile file = parse("\"dtype\": \"" + dtype.id() + "\"", "\"grid\": 1, \"block\": 32, \"args\": [\"x\", "
                    + "\"y\"]");
            assertEquals(file.macros(dtype), told, dtype.id());
            // the parameter types the prompt gives x and y pass in every dtype
            assertTrue(ParameterTypes.violation(file, dtype).isEmpty(), dtype.id());
            assertTrue(prompt.contains("`x` (`const KEVO_X*`), `y` (`KEVO_Y*`)"), prompt);
            assertTrue(prompt.contains("The dtype judged (" + dtype.id() + ") must be among them"), prompt);
        }
        Matcher listed = Pattern.compile("of ([a-z0-9, -]+); without it, (\\w+) alone").matcher(system());
        assertTrue(listed.find(), system());
        List<String> ids = Arrays.asList(listed.group(1).split(", "));
        for (String id : ids) {
            parse("\"dtype\": \"" + id + "\"", "\"grid\": 1, \"block\": 32, \"args\": []");
        }
        for (String id : List.of("fp64", "int8", "fp8", "fp16-fp32")) {
            assertFalse(ids.contains(id));
            assertThrows(ContractException.class, () -> parse("\"dtype\": \"" + id + "\"",
                    "\"grid\": 1, \"block\": 32, \"args\": []"), id);
        }
        assertEquals(List.of(Precision.parse(listed.group(2))), parse("", "\"grid\": 1, \"block\": 32, \"args\": []")
                .dtypes());
    }

    /**
     * The other direction: every number in the prompt's own text (the template and the rules, without the evidence
     * and without code) is one of the limits the tests above hold to the checker, or one of a few words that are no
     * limit. A limit written into {@code system.md} or {@link ContractRules} by hand fails here.
     */
    @Test
    void thePromptStatesNoLimitTheCheckerDoesNotHold() {
        ModelSpec spec = Fixtures.spec("ollama", "http://127.0.0.1:1", null, b -> b.templates = Fixtures.IMPROVE_ONLY);
        PromptTemplates templates = PromptTemplates.load(TestFiles.root().resolve(spec.prompts()), spec, "m");
        ContractRules rules = ContractRules.of(Fixtures.CONTEXT);
        String text = templates.render(PromptTemplates.SYSTEM, key -> switch (key) {
            case "plan_rules" -> rules.plans();
            case "knob_rules" -> rules.knobs();
            case "source_rules" -> rules.source();
            case "judging_rules" -> rules.judging();
            default -> "";  // evidence: the device, suite, task, kevo.h and known files measure or show, not rule
        });
        assertTrue(KNOBS.matcher(text).find(), text);
        for (Pattern limit : LIMITS) {
            text = limit.matcher(text).replaceAll(" ");
        }
        StringBuilder prose = new StringBuilder();
        boolean fenced = false;
        for (String line : text.lines().toList()) {
            if (line.startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                prose.append(line.replaceAll("`[^`]*`", " ")).append('\n');
            }
        }
        String rest = prose.toString();
        for (String word : NOT_LIMITS) {
            rest = rest.replace(word, " ");
        }
        String scanned = rest;
        List<String> unheld = Pattern.compile("(?<![\\w.^])\\d+(?:\\.\\d+)?(?:e-?\\d+)?(?![\\w^])").matcher(scanned)
                .results().map(r -> r.group() + " in \"..." + scanned.substring(Math.max(0, r.start() - 60),
                        Math.min(scanned.length(), r.end() + 20)).replace('\n', ' ') + "...\"").toList();
        assertEquals(List.of(), unheld, "numbers no test holds to the checker");
    }

    @Test
    void aRepairIsToldTheSameRules() {
        String repair = PromptBuilderTest.builder(Fixtures.IMPROVE_ONLY).forRepair(new RepairRequest(Fixtures.CONTEXT,
                Fixtures.parent(), Fixtures.wrongResult(), 1, new SplittableRandom(1))).system();
        for (Pattern limit : List.of(KNOBS, LENGTH, FILE_SIZE, CLUSTER, TOLERANCE)) {
            assertTrue(limit.matcher(repair).find(), limit + " in the repair's system prompt");
        }
    }

    /**
     * A loss's tensors (the test operator row_loss: int64 labels, a float32 loss) are stated with the type a kernel
     * must declare them with and their extent, as ParameterTypes holds them, in any dtype.
     */
    @Test
    void aLossesTensorsAreStatedWithTheirOwnTypesAndExtents() {
        String plans = new ContractRules(new dev.kevo.task.op.Task(Operators.byId("row_loss"), Precision.BF16), null,
                EvalSettings.defaults()).plans();
        assertTrue(plans.contains("`x` (`const KEVO_X*`), `labels` (`const long long*`, one per row), `dx` (`KEVO_Y*`), "
                + "`loss` (`float*`, one element)"), plans);
    }
}
