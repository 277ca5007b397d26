package dev.kevo.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.Precision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ContractParserTest {

    static final Path ROOT = Path.of(System.getProperty("kevo.root", "."));
    static final Path BROKEN = ROOT.resolve("src/test/resources/broken");

    /** Every kernel file shipped with kevo: the seeds, the reference kernels beside them and the baselines. */
    static Stream<Path> shippedKernels() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("seeds", "seeds/reference", "seeds/log_softmax", "seeds/masked_softmax",
                "seeds/softmax_backward", "seeds/log_softmax_backward", "seeds/cross_entropy", "seeds/cross_entropy_sum",
                "evaluator/baselines")) {
            try (Stream<Path> s = Files.list(ROOT.resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".cu")).sorted().forEach(files::add);
            }
        }
        return files.stream();
    }

    private static ContractException parseFails(String source) {
        return assertThrows(ContractException.class, () -> ContractParser.parse("k.cu", null, source));
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in: " + message);
        }
    }

    private static void assertOneLine(String message) {
        assertFalse(message.contains("\n"), () -> "not one line: " + message);
    }

    /** A header around a launch object, with the plan and top level left valid. */
    private static String withLaunch(String launchJson) {
        return "/*@kevo\n{ \"plans\": [ { \"when\": \"true\", \"launches\": [ " + launchJson + " ] } ] }\n*/\n";
    }

    private static final String GOOD_LAUNCH =
            "{ \"kernel\": \"k\", \"grid\": \"rows\", \"block\": 256, \"args\": [\"x\", \"y\", \"cols\"] }";

    @Test
    void theShippedKernelsAreThere() throws IOException {
        List<String> names = shippedKernels().map(p -> p.getFileName().toString()).toList();
        assertTrue(names.contains("block_two_pass.cu"), names::toString);
        assertTrue(names.size() >= 8, names::toString);
    }

    @ParameterizedTest
    @MethodSource("shippedKernels")
    void everyShippedKernelParses(Path file) throws IOException {
        KernelFile kernel = ContractParser.read(file);
        assertEquals(file.getFileName().toString(), kernel.name());
        assertEquals(file, kernel.path());
        assertEquals(Files.readString(file), kernel.source());
        assertFalse(kernel.description().isBlank(), "every shipped kernel describes itself");
        assertFalse(kernel.plans().isEmpty());
        for (KernelFile.Plan plan : kernel.plans()) {
            assertFalse(plan.launches().isEmpty());
        }
        assertFalse(kernel.kernelNames().isEmpty());
        for (String name : kernel.kernelNames()) {
            assertTrue(name.matches("[A-Za-z_][A-Za-z0-9_]*"), name);
            assertTrue(Pattern.compile("extern \"C\" __global__ void (__launch_bounds__\\([^)]*\\) )?"
                    + Pattern.quote(name) + "\\(").matcher(kernel.source()).find(),
                    () -> file + " launches " + name + " but declares no extern \"C\" __global__ kernel of that name");
        }
        // the last plan of a shipped kernel covers every shape
        assertEquals("true", kernel.plans().getLast().when().text());
    }

    private static final Pattern SIGNATURE = Pattern.compile(
            "extern \"C\" __global__ void (?:__launch_bounds__\\([^)]*\\) )?(\\w+)\\(([^)]*)\\)");

    @ParameterizedTest
    @MethodSource("shippedKernels")
    void everyLaunchMatchesItsKernelSignature(Path file) {
        KernelFile kernel = ContractParser.read(file);
        java.util.Map<String, List<String>> params = new java.util.HashMap<>();
        Matcher m = SIGNATURE.matcher(kernel.source());
        while (m.find()) {
            params.put(m.group(1), List.of(m.group(2).split(",")).stream().map(String::trim).toList());
        }
        for (KernelFile.Plan plan : kernel.plans()) {
            for (KernelFile.Launch launch : plan.launches()) {
                List<String> declared = params.get(launch.kernel());
                assertTrue(declared != null, () -> file + ": no extern \"C\" signature for " + launch.kernel());
                assertEquals(declared.size(), launch.args().size(), () -> file + " " + launch.kernel() + " args");
                for (int i = 0; i < declared.size(); i++) {
                    boolean pointer = declared.get(i).contains("*");
                    KernelFile.Arg arg = launch.args().get(i);
                    // a binding by name is a tensor's or the workspace's pointer, or one of the operator's floats
                    boolean scalar = arg instanceof KernelFile.Arg.Buffer b
                            && kernel.op().scalars().stream().anyMatch(sc -> sc.name().equals(b.name()));
                    assertEquals(pointer, arg instanceof KernelFile.Arg.Buffer && !scalar,
                            file + " " + launch.kernel() + " parameter " + declared.get(i) + " gets " + arg);
                    if (scalar) {
                        assertTrue(declared.get(i).startsWith("float "), file + ": a scalar is a float: " + declared.get(i));
                    }
                    if (arg instanceof KernelFile.Arg.Buffer b && b.name().equals("x")) {
                        assertTrue(declared.get(i).startsWith("const"), "x is the input: const float*");
                    }
                }
            }
        }
    }

    @Test
    void contractExampleParsesIntoPlansLaunchesAndArgs() {
        String source = """
                /*@kevo
                {
                  "description": "warp per row, row held in registers",
                  "workspace": "rows * 8",
                  "plans": [
                    { "when": "cols <= 1024",
                      "launches": [ { "kernel": "softmax_warp", "grid": "cdiv(rows, 8)", "block": 256,
                                      "args": ["x", "y", "rows", "cols"] } ] },
                    { "launches": [ { "kernel": "row_stats", "grid": "rows", "block": 512, "smem": "32 * 8",
                                      "args": ["x", "ws", "rows", "cols"] },
                                    { "kernel": "normalise", "grid": "rows", "block": 512,
                                      "args": ["x", "y", "ws", "cdiv(cols, 4)", 7] } ] }
                  ]
                }
                */
                #include "kevo.h"
                """;
        KernelFile file = ContractParser.parse("example.cu", null, source);
        Expr.Env env = new Expr.Env(100, 2000, 132, Map.of());
        assertEquals("warp per row, row held in registers", file.description());
        assertEquals(800, file.workspace().evalLong(env));
        assertEquals(2, file.plans().size());
        assertEquals(List.of("softmax_warp", "row_stats", "normalise"), file.kernelNames());

        KernelFile.Plan first = file.plans().get(0);
        assertFalse(first.when().evalBoolean(env));
        assertTrue(first.when().evalBoolean(new Expr.Env(100, 1024, 132, Map.of())));
        KernelFile.Launch warp = first.launches().getFirst();
        assertEquals(13, warp.grid().evalLong(env));
        assertEquals(256, warp.block().evalLong(env));
        assertEquals(0, warp.smem().evalLong(env), "smem defaults to 0");

        KernelFile.Plan second = file.plans().get(1);
        assertTrue(second.when().evalBoolean(env), "when defaults to true");
        assertEquals(256, second.launches().get(0).smem().evalLong(env));
        List<KernelFile.Arg> args = second.launches().get(1).args();
        assertEquals(new KernelFile.Arg.Buffer("x"), args.get(0));
        assertEquals(new KernelFile.Arg.Buffer("y"), args.get(1));
        assertEquals(new KernelFile.Arg.Buffer("ws"), args.get(2));
        assertEquals(500, assertInstanceOf(KernelFile.Arg.Int.class, args.get(3)).value().evalLong(env));
        assertEquals(7, assertInstanceOf(KernelFile.Arg.Int.class, args.get(4)).value().evalLong(env));
        List<KernelFile.Arg> rowStatsArgs = second.launches().get(0).args();
        assertEquals(2000, assertInstanceOf(KernelFile.Arg.Int.class, rowStatsArgs.get(3)).value().evalLong(env),
                "'cols' is an integer expression, not a buffer");
    }

    @Test
    void defaultsWhenOptionalKeysAreAbsent() {
        KernelFile file = ContractParser.parse("k.cu", null, withLaunch(GOOD_LAUNCH));
        Expr.Env env = new Expr.Env(3, 4, 5, Map.of());
        assertEquals("", file.description());
        assertEquals(0, file.workspace().evalLong(env));
        assertEquals(0, file.plans().getFirst().launches().getFirst().smem().evalLong(env));
        assertFalse(file.plans().getFirst().launches().getFirst().cooperative(), "ordinary launch by default");
        assertEquals(List.of(Precision.FP32), file.dtypes(), "a file without a dtype is float32, as every file was before");
    }

    @Test
    void aFileDeclaresItsDtypesAndAnUnknownPairIsOneLineAtItsPlace() {
        String header = "/*@kevo\n{ \"dtype\": \"%s\",\n \"plans\": [ { \"launches\": [ " + GOOD_LAUNCH + " ] } ] }\n*/\n";
        assertEquals(List.of(Precision.BF16_FP32), ContractParser.parse("k.cu", null, header.formatted("bf16-fp32"))
                .dtypes());
        String listed = header.replace("\"%s\"", "[\"fp32\", \"bf16\"]");
        assertEquals(List.of(Precision.FP32, Precision.BF16), ContractParser.parse("k.cu", null, listed).dtypes());
        ContractException e = parseFails(header.formatted("fp8"));
        assertContains(e.getMessage(), "k.cu:2", "unknown dtype 'fp8'", "fp32, bf16, fp16, bf16-fp32");
        ContractException twice = parseFails(header.replace("\"%s\"", "[\"bf16\", \"bf16\"]"));
        assertContains(twice.getMessage(), "k.cu:2", "'bf16' is listed twice");
    }


    @Test
    void aCooperativeLaunchSaysSoWithABoolean() {
        String launch = "{ \"kernel\": \"k\", \"grid\": \"sms\", \"block\": 256, \"cooperative\": true, \"args\": [] }";
        assertTrue(ContractParser.parse("k.cu", null, withLaunch(launch)).plans().getFirst().launches().getFirst()
                .cooperative());
        ContractException e = parseFails(withLaunch(launch.replace("true", "\"yes\"")));
        assertContains(e.getMessage(), "plan 1 launch 1 'cooperative' must be true or false");
        assertOneLine(e.getMessage());
    }

    @Test
    void jsonNumbersAreAcceptedWhereExpressionsAre() {
        String source = "/*@kevo\n{ \"workspace\": 64, \"plans\": [ { \"launches\": [ { \"kernel\": \"k\", \"grid\": 3,"
                + " \"block\": 128, \"smem\": 1024, \"args\": [5] } ] } ] }\n*/\n";
        KernelFile file = ContractParser.parse("k.cu", null, source);
        Expr.Env env = new Expr.Env(1, 1, 1, Map.of());
        KernelFile.Launch launch = file.plans().getFirst().launches().getFirst();
        assertEquals(64, file.workspace().evalLong(env));
        assertEquals(3, launch.grid().evalLong(env));
        assertEquals(1024, launch.smem().evalLong(env));
        assertEquals(5, assertInstanceOf(KernelFile.Arg.Int.class, launch.args().getFirst()).value().evalLong(env));
    }

    @Test
    void noHeader() {
        ContractException e = parseFails("#include \"kevo.h\"\nextern \"C\" __global__ void k() {}\n");
        assertContains(e.getMessage(), "k.cu", "no /*@kevo header");
        ContractException fromFile = assertThrows(ContractException.class,
                () -> ContractParser.read(BROKEN.resolve("no_header.cu")));
        assertContains(fromFile.getMessage(), BROKEN.resolve("no_header.cu").toString(), "no /*@kevo header");
        assertOneLine(fromFile.getMessage());
        assertEquals(KevoException.Kind.INPUT, fromFile.kind());
    }

    @Test
    void unclosedHeaderNamesTheLineItStarts() {
        Path file = BROKEN.resolve("unclosed_header.cu");
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(file));
        assertTrue(e.getMessage().startsWith(file + ":2: "), e::getMessage);
        assertContains(e.getMessage(), "never closed");
        assertOneLine(e.getMessage());
    }

    @Test
    void malformedJsonNamesTheLineOfTheError() {
        Path file = BROKEN.resolve("malformed_json.cu");
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(file));
        assertTrue(e.getMessage().startsWith(file + ":6: malformed /*@kevo JSON"), e::getMessage);
        assertContains(e.getMessage(), "rows");
        assertOneLine(e.getMessage());
    }

    @Test
    void malformedJsonLineCountsFromTheHeaderWhereverItStarts() {
        String source = "// line 1\n// line 2\n/*@kevo\n{\n  \"plans\": [\n    oops\n  ]\n}\n*/\n";
        ContractException e = parseFails(source);
        assertTrue(e.getMessage().startsWith("k.cu:6: malformed"), e::getMessage);
        ContractException sameLine = parseFails("/*@kevo { \"plans\": ] } */\n");
        assertTrue(sameLine.getMessage().startsWith("k.cu:1: malformed"), sameLine::getMessage);
    }

    /** A header cut short: Jackson points at where the object opened, in its own terms; the user gets the line. */
    @Test
    void anUnclosedHeaderSaysWhereItOpenedWithoutJacksonsInternals() {
        ContractException e = parseFails("// line 1\n/*@kevo\n{\"plans\": [{\"launches\": [\n */\n");
        assertTrue(e.getMessage().startsWith("k.cu:"), e::getMessage);
        assertFalse(e.getMessage().contains("Source:"), e::getMessage);
        assertFalse(e.getMessage().contains("StreamReadFeature"), e::getMessage);
        assertContains(e.getMessage(), "start marker at line 3");
        assertOneLine(e.getMessage());
    }

    @Test
    void anUnknownNameListsTheFilesKnobs() {
        ContractException e = parseFails("""
                /*@kevo {"knobs": {"TILE": {"values": [64, 128], "value": 64}, "WARPS": {"range": [1, 8], "value": 4}},
                  "plans": [{"launches": [{"kernel": "k", "grid": "rows", "block": "tile", "args": ["y"]}]}]} */
                extern "C" __global__ void k(float* y) { }
                """);
        assertContains(e.getMessage(), "unknown name 'tile'", "rows, cols, sms and the knobs TILE, WARPS");
    }

    @Test
    void duplicateKeyIsAnErrorOnItsLine() {
        Path file = BROKEN.resolve("duplicate_key.cu");
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(file));
        assertTrue(e.getMessage().startsWith(file + ":5: "), e::getMessage);
        assertContains(e.getMessage(), "block", "uplicate");
        assertOneLine(e.getMessage());
    }

    @Test
    void unknownTopLevelKey() {
        ContractException e = parseFails("/*@kevo\n{ \"plan\": [], \"plans\": [ { \"launches\": [ " + GOOD_LAUNCH
                + " ] } ] }\n*/\n");
        assertContains(e.getMessage(), "k.cu:2: header: unknown key 'plan'",
                "description, dtype, knob_rule, knobs, op, plans, workspace");
        assertOneLine(e.getMessage());
    }

    @Test
    void theOperatorIsSoftmaxUnlessTheHeaderSaysAndAnUnknownOneIsAnErrorOnItsLine() {
        String plans = "\"plans\": [ { \"launches\": [ " + GOOD_LAUNCH + " ] } ] }\n*/\n";
        assertEquals("softmax", ContractParser.parse("k.cu", null, "/*@kevo\n{ " + plans).op().id());
        assertEquals("softmax", ContractParser.parse("k.cu", null, "/*@kevo\n{ \"op\": \"softmax\",\n" + plans)
                .op().id());
        ContractException e = parseFails("/*@kevo\n{ \"dtype\": \"fp32\",\n  \"op\": \"softmaxx\",\n" + plans);
        assertContains(e.getMessage(), "k.cu:3:", "unknown operator 'softmaxx'", "softmax");
        assertOneLine(e.getMessage());
    }

    /** A buffer argument is one of the operator's tensors or the workspace; any other name is an expression. */
    @Test
    void onlyTheOperatorsTensorsAndTheWorkspaceAreBuffers() {
        KernelFile file = ContractParser.parse("k.cu", null, withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1, \"block\": 32, \"args\": [\"X\", \"y\", \"ws\", \"rows\"] }"));
        List<KernelFile.Arg> args = file.plans().getFirst().launches().getFirst().args();
        assertEquals(List.of(new KernelFile.Arg.Buffer("x"), new KernelFile.Arg.Buffer("y"),
                new KernelFile.Arg.Buffer("ws")), args.subList(0, 3));
        assertInstanceOf(KernelFile.Arg.Int.class, args.get(3));
        ContractException e = parseFails(withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1, \"block\": 32, \"args\": [\"x\", \"dy\"] }"));
        assertContains(e.getMessage(), "arg 2", "dy");
    }

    @Test
    void unknownPlanKey() {
        ContractException e = parseFails("/*@kevo\n{ \"plans\": [ { \"when\": \"true\" }, { \"if\": \"cols < 5\","
                + " \"launches\": [ " + GOOD_LAUNCH + " ] } ] }\n*/\n");
        // the first plan lacks launches, but keys are checked as each plan is read: plan 1 fails first
        assertContains(e.getMessage(), "plan 1 'launches' must be a non-empty list");
        ContractException unknown = parseFails("/*@kevo\n{ \"plans\": [ { \"if\": \"cols < 5\","
                + " \"launches\": [ " + GOOD_LAUNCH + " ] } ] }\n*/\n");
        assertContains(unknown.getMessage(), "plan 1: unknown key 'if'", "launches, when");
    }

    @Test
    void unknownLaunchKeyFromAFile() {
        Path file = BROKEN.resolve("unknown_launch_key.cu");
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(file));
        assertContains(e.getMessage(), file + ":5: plan 1 launch 1: unknown key 'threads'",
                "args, block, cluster, cooperative, grid, kernel, smem");
        assertOneLine(e.getMessage());
    }

    /** An error names the line that holds the bad value, not the header's first line, and counts plans from 1. */
    @Test
    void errorsPointAtTheLineOfTheBadValue() {
        Path typo = BROKEN.resolve("expr_typo.cu");
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(typo));
        assertEquals(typo + ":10: plan 2 launch 1 'grid': 'rosw': unknown name 'rosw'", firstClause(e.getMessage()));

        String good = "/*@kevo\n{\n  \"plans\": [\n    { \"launches\": [ " + GOOD_LAUNCH + " ] },\n"
                + "    { \"when\": \"true\",\n      \"launches\": [\n        " + GOOD_LAUNCH + ",\n        "
                + GOOD_LAUNCH + "\n      ] }\n  ]\n}\n*/\n";
        assertEquals("k.cu", ContractParser.parse("k.cu", null, good).name());
        // the same file with one mistake at a time, each on a line of its own
        assertEquals("k.cu:5: plan 2 'when': ", prefix(parseFails(good.replace("\"when\": \"true\"",
                "\"when\": \"cols <\"")), "k.cu:5: plan 2 'when': "));
        assertEquals("k.cu:8: plan 2 launch 2: unknown key 'grdi'", firstClause(parseFails(
                replaceLast(good, "\"grid\"", "\"grdi\"")).getMessage()));
        assertEquals("k.cu:7: plan 2 launch 1 arg 3: ", prefix(parseFails(replaceNth(good, "\"cols\"", 1,
                "\"colz\"")), "k.cu:7: plan 2 launch 1 arg 3: "));
        assertEquals("k.cu:5: plan 2: unknown key 'wehn'", firstClause(parseFails(good.replace("\"when\"",
                "\"wehn\"")).getMessage()));
        assertEquals("k.cu:4: plan 1 launch 1 has no 'block'", parseFails(replaceNth(good, ", \"block\": 256", 0,
                "")).getMessage());
    }

    /**
     * The corpus's 8000-term plan expression (issue 41): it once overflowed kevo's stack, which ended kevo check,
     * kevo eval and any campaign whose model wrote it. Now it is the file's contract error, one line naming the
     * file, the line and place of the expression, and the limit it broke.
     */
    @Test
    void anExpressionPastTheLimitsIsOneLineNamingTheFileThePlaceAndTheLimit() {
        Path deep = ROOT.resolve("evaluator/adversarial/deep_expression.cu");
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(deep));
        assertTrue(e.getMessage().startsWith(deep + ":5: plan 1 launch 1 'grid': 'cdiv(rows, 8) + 0 + 0"), e.getMessage());
        assertContains(e.getMessage(), "over the " + Expr.MAX_LENGTH + "-character limit for an expression");
        assertOneLine(e.getMessage());
        assertTrue(e.getMessage().length() < deep.toString().length() + 200, e.getMessage());
    }

    private static String firstClause(String message) {
        int open = message.indexOf(" (");
        return open < 0 ? message : message.substring(0, open);
    }

    private static String prefix(ContractException e, String expected) {
        return e.getMessage().startsWith(expected) ? expected : e.getMessage();
    }

    private static String replaceLast(String text, String target, String replacement) {
        int at = text.lastIndexOf(target);
        return text.substring(0, at) + replacement + text.substring(at + target.length());
    }

    /** Replaces the n-th (from 0) occurrence of target. */
    private static String replaceNth(String text, String target, int n, String replacement) {
        int at = -1;
        for (int i = 0; i <= n; i++) {
            at = text.indexOf(target, at + 1);
        }
        return text.substring(0, at) + replacement + text.substring(at + target.length());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "{ \"description\": \"nothing to run\" }; 'plans' must be a non-empty list",
            "{ \"plans\": [] }; 'plans' must be a non-empty list",
            "{ \"plans\": { \"when\": \"true\" } }; 'plans' must be a non-empty list",
            "{ \"plans\": [ { \"when\": \"true\" } ] }; plan 1 'launches' must be a non-empty list",
            "{ \"plans\": [ { \"launches\": [] } ] }; plan 1 'launches' must be a non-empty list",
            "{ \"plans\": [ 3 ] }; plan 1 must be a JSON object",
            "[ 1, 2 ]; header must be a JSON object",
    })
    void missingOrEmptyPlans(String header, String expected) {
        ContractException e = parseFails("/*@kevo\n" + header + "\n*/\n");
        assertContains(e.getMessage(), "k.cu:2: ", expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "{ \"grid\": \"rows\", \"block\": 256, \"args\": [] }; plan 1 launch 1 has no 'kernel'",
            "{ \"kernel\": \"k\", \"block\": 256, \"args\": [] }; plan 1 launch 1 has no 'grid'",
            "{ \"kernel\": \"k\", \"grid\": 1, \"args\": [] }; plan 1 launch 1 has no 'block'",
            "{ \"kernel\": \"k\", \"grid\": 1, \"block\": 1 }; plan 1 launch 1 has no 'args'",
            "{ \"kernel\": \"k\", \"grid\": 1, \"block\": 1, \"args\": \"x\" }; plan 1 launch 1 'args' must be a list",
            "{ \"kernel\": 5, \"grid\": 1, \"block\": 1, \"args\": [] }; plan 1 launch 1 'kernel' must be a string",
    })
    void missingLaunchKeys(String launch, String expected) {
        ContractException e = parseFails(withLaunch(launch));
        assertContains(e.getMessage(), expected);
        assertOneLine(e.getMessage());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "soft-max",
            "2fast",
            "k()",
            "k k",
            "''",
    })
    void kernelNameMustBeACIdentifier(String kernel) {
        ContractException e = parseFails(withLaunch("{ \"kernel\": \"" + kernel
                + "\", \"grid\": 1, \"block\": 32, \"args\": [] }"));
        assertContains(e.getMessage(), "plan 1 launch 1 'kernel': '" + kernel + "' is not a C identifier");
    }

    @Test
    void badExpressionsNameTheirKeyPath() {
        ContractException grid = parseFails(withLaunch(
                "{ \"kernel\": \"k\", \"grid\": \"rows +\", \"block\": 256, \"args\": [] }"));
        assertContains(grid.getMessage(), "k.cu:2: plan 1 launch 1 'grid': 'rows +'");

        ContractException block = parseFails(withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1, \"block\": \"sqrt(cols)\", \"args\": [] }"));
        assertContains(block.getMessage(), "plan 1 launch 1 'block': ", "sqrt");

        ContractException smem = parseFails(withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1, \"block\": 32, \"smem\": \"warps * 4\", \"args\": [] }"));
        assertContains(smem.getMessage(), "plan 1 launch 1 'smem': ", "unknown name 'warps'");

        ContractException arg = parseFails(withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1, \"block\": 32, \"args\": [\"x\", \"y\", \"z\"] }"));
        assertContains(arg.getMessage(), "plan 1 launch 1 arg 3: ", "unknown name 'z'");

        ContractException when = parseFails("/*@kevo\n{ \"plans\": [ { \"launches\": [ " + GOOD_LAUNCH + " ] },"
                + " { \"when\": \"cols <<= 4\", \"launches\": [ " + GOOD_LAUNCH + " ] } ] }\n*/\n");
        assertContains(when.getMessage(), "plan 2 'when': ");

        ContractException workspace = parseFails("/*@kevo\n{ \"workspace\": \"2 rows\", \"plans\": [ { \"launches\": [ "
                + GOOD_LAUNCH + " ] } ] }\n*/\n");
        assertContains(workspace.getMessage(), "k.cu:2: 'workspace': '2 rows'");

        ContractException secondLaunch = parseFails("/*@kevo\n{ \"plans\": [ { \"launches\": [ " + GOOD_LAUNCH
                + ", { \"kernel\": \"k2\", \"grid\": \"pow(rows, 2)\", \"block\": 32, \"args\": [] } ] } ] }\n*/\n");
        assertContains(secondLaunch.getMessage(), "plan 1 launch 2 'grid': ", "pow");
    }

    @Test
    void expressionsMustBeStringsOrIntegers() {
        ContractException fraction = parseFails(withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1.5, \"block\": 32, \"args\": [] }"));
        assertContains(fraction.getMessage(), "plan 1 launch 1 'grid' must be an expression string or an integer");
        ContractException list = parseFails(withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1, \"block\": [32], \"args\": [] }"));
        assertContains(list.getMessage(), "plan 1 launch 1 'block' must be an expression string or an integer");
        ContractException description = parseFails("/*@kevo\n{ \"description\": 3, \"plans\": [ { \"launches\": [ "
                + GOOD_LAUNCH + " ] } ] }\n*/\n");
        assertContains(description.getMessage(), "k.cu:2: 'description' must be a string");
    }

    @Test
    void buffersAndIntegerArgs() {
        KernelFile file = ContractParser.parse("k.cu", null, withLaunch(
                "{ \"kernel\": \"k\", \"grid\": 1, \"block\": 32, \"args\": [\"ws\", \"x\", \"y\", \"rows\", \"cols\","
                        + " \"sms * 2\", \"-1\", 12] }"));
        List<KernelFile.Arg> args = file.plans().getFirst().launches().getFirst().args();
        assertEquals(8, args.size());
        assertEquals(List.of("ws", "x", "y"), args.subList(0, 3).stream().map(a -> assertInstanceOf(KernelFile.Arg.Buffer.class, a).name()).toList());
        Expr.Env env = new Expr.Env(10, 20, 30, Map.of());
        List<Long> ints = args.subList(3, 8).stream()
                .map(a -> assertInstanceOf(KernelFile.Arg.Int.class, a).value().evalLong(env)).toList();
        assertEquals(List.of(10L, 20L, 60L, -1L, 12L), ints);
        assertEquals("ws", args.getFirst().toString());
        assertEquals("sms * 2", args.get(5).toString());
    }

    @Test
    void oversizedSourceIsRejectedBeforeParsing(@TempDir Path dir) throws IOException {
        String header = withLaunch(GOOD_LAUNCH);
        String big = header + "// " + "a".repeat(ContractParser.MAX_SOURCE_BYTES) + "\n";
        ContractException inMemory = parseFails(big);
        assertContains(inMemory.getMessage(), "k.cu", String.valueOf(ContractParser.MAX_SOURCE_BYTES));

        Path file = dir.resolve("huge.cu");
        Files.writeString(file, big);
        ContractException onDisk = assertThrows(ContractException.class, () -> ContractParser.read(file));
        assertContains(onDisk.getMessage(), file.toString(), Files.size(file) + " bytes",
                ContractParser.MAX_SOURCE_BYTES + "-byte limit");

        // the limit is in bytes, as a file holds the text: half as many two-byte characters are as much
        String wide = header + "// " + "\u00e9".repeat(ContractParser.MAX_SOURCE_BYTES / 2) + "\n";
        assertTrue(wide.length() < ContractParser.MAX_SOURCE_BYTES);
        assertContains(parseFails(wide).getMessage(), "k.cu: ", ContractParser.MAX_SOURCE_BYTES + "-byte limit");

        // exactly at the limit is fine
        String atLimit = header + "//" + "a".repeat(ContractParser.MAX_SOURCE_BYTES - header.length() - 3) + "\n";
        assertEquals(ContractParser.MAX_SOURCE_BYTES, atLimit.length());
        Path fits = dir.resolve("fits.cu");
        Files.writeString(fits, atLimit);
        assertEquals(List.of("k"), ContractParser.read(fits).kernelNames());
    }

    @Test
    void missingFile(@TempDir Path dir) {
        Path file = dir.resolve("nope.cu");
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(file));
        assertEquals(file + ": no such file", e.getMessage());
    }

    @Test
    void notUtf8(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("latin1.cu");
        byte[] header = withLaunch(GOOD_LAUNCH).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] bytes = java.util.Arrays.copyOf(header, header.length + 3);
        bytes[header.length] = '/';
        bytes[header.length + 1] = '/';
        bytes[header.length + 2] = (byte) 0xE9;
        Files.write(file, bytes);
        ContractException e = assertThrows(ContractException.class, () -> ContractParser.read(file));
        assertContains(e.getMessage(), file.toString(), "UTF-8");
    }

    @Test
    void kernelNamesAreDistinctAndInPlanOrder() {
        String source = "/*@kevo\n{ \"plans\": ["
                + " { \"when\": \"cols < 10\", \"launches\": [ { \"kernel\": \"b\", \"grid\": 1, \"block\": 32, \"args\": [] },"
                + " { \"kernel\": \"a\", \"grid\": 1, \"block\": 32, \"args\": [] } ] },"
                + " { \"launches\": [ { \"kernel\": \"a\", \"grid\": 1, \"block\": 32, \"args\": [] },"
                + " { \"kernel\": \"c\", \"grid\": 1, \"block\": 32, \"args\": [] } ] } ] }\n*/\n";
        assertEquals(List.of("b", "a", "c"), ContractParser.parse("k.cu", null, source).kernelNames());
    }

    /**
     * masked_softmax's plans may read the attention layout and pass its scale by name; softmax's may do neither (for it
     * they would always read one batch entry, one head and no mask).
     */
    @Test
    void theAttentionNamesAreForTheOperatorThatTakesThem() {
        String launch = "\"launches\": [ { \"kernel\": \"k\", \"grid\": \"batch * heads * queries\", \"block\": 32,"
                + " \"args\": [\"x\", \"lengths\", \"mask\", \"y\", \"scale\", \"mask_kind\"] } ]";
        KernelFile file = ContractParser.parse("k.cu", null, "/*@kevo { \"op\": \"masked_softmax\", \"plans\": [ "
                + "{ \"when\": \"mask_kind == 1 && queries < cols\", " + launch + " } ] } */");
        assertEquals(List.of(new KernelFile.Arg.Buffer("x"), new KernelFile.Arg.Buffer("lengths"),
                new KernelFile.Arg.Buffer("mask"), new KernelFile.Arg.Buffer("y"), new KernelFile.Arg.Buffer("scale")),
                file.plans().getFirst().launches().getFirst().args().subList(0, 5));
        ResolvedPlan plan = PlanResolver.resolve(file, dev.kevo.data.Shape.parse("2x4x8x16:causal"), 132);
        assertEquals(64, plan.launches().getFirst().grid());
        assertEquals(1, plan.launches().getFirst().args().getLast(), "mask_kind of causal");
        assertThrows(PlanException.class, () -> PlanResolver.resolve(file, dev.kevo.data.Shape.parse(
                "2x4x8x16:padding"), 132), "the plan is for causal shapes only");
        ContractException heads = parseFails("/*@kevo { \"plans\": [ { " + launch.replace("\"lengths\", \"mask\", ", "")
                .replace(", \"scale\", \"mask_kind\"", "") + " } ] } */");
        assertContains(heads.getMessage(), "unknown name 'batch'", "(expressions may use rows, cols, sms)");
        ContractException scale = parseFails(withLaunch("{ \"kernel\": \"k\", \"grid\": 1, \"block\": 32, "
                + "\"args\": [\"x\", \"y\", \"scale\"] }"));
        assertContains(scale.getMessage(), "unknown name 'scale'");
    }

    /** The contract's attention example parses, and picks its plan by mask kind and queries as it says. */
    @Test
    void theContractsAttentionExampleParsesAndPlansByMaskKind() throws IOException {
        KernelFile example = contractExample("### Attention shapes and masks");
        assertEquals("masked_softmax", example.op().id());
        assertEquals(0, PlanResolver.resolve(example, dev.kevo.data.Shape.parse("8x32x1x4096:causal"), 132)
                .planIndex());
        assertEquals(1, PlanResolver.resolve(example, dev.kevo.data.Shape.parse("8x32x16x4096:causal"), 132)
                .planIndex());
        ResolvedPlan padded = PlanResolver.resolve(example, dev.kevo.data.Shape.parse("8x32x1x4096:padding"), 132);
        assertEquals(1, padded.planIndex());
        assertEquals(List.of(32, 1, 2), padded.launches().getFirst().args().subList(6, 9), "heads, queries, mask_kind");
    }

    /**
     * The contract's loss example parses as cross_entropy, binds its labels, outputs, scalar and workspace by name, and
     * its kernel's parameters are the types the operator's tensors hold in every dtype it declares.
     */
    @Test
    void theContractsLossExampleParsesAndItsParametersAreTyped() throws IOException {
        KernelFile example = contractExample("### A loss: cross_entropy");
        assertEquals("cross_entropy", example.op().id());
        ResolvedPlan plan = PlanResolver.resolve(example, dev.kevo.data.Shape.parse("4096x32000"), 132);
        assertEquals(3, plan.launches().size());
        assertEquals(4096 * 4 + 16, plan.workspaceBytes());
        for (dev.kevo.data.Precision dtype : example.dtypes()) {
            assertEquals(java.util.Optional.empty(), ParameterTypes.violation(example, dtype), dtype.id());
        }
    }

    /** The first kernel file of docs/contract.md's section {@code heading}, parsed. */
    private static KernelFile contractExample(String heading) throws IOException {
        String contract = Files.readString(ROOT.resolve("docs/contract.md"));
        int section = contract.indexOf(heading);
        assertTrue(section >= 0, heading);
        int start = contract.indexOf("```cuda\n", section) + "```cuda\n".length();
        return ContractParser.parse("example.cu", null, contract.substring(start, contract.indexOf("```", start)));
    }
}
