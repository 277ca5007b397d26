package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ezylang.evalex.parser.ASTNode;
import dev.kevo.Exhaustive;
import dev.kevo.KevoException;
import dev.kevo.cuda.Prelude;
import dev.kevo.task.Expr;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The generated C of plan expressions against kevo's own evaluation: every expression of ExprTest's tables, edge
 * cases of kevo's semantics, and random expressions, each on several environments, compiled and run on the host.
 */
class CExpressionTest {

    /** ExprTest's environment first, then shapes from the suites, edges and a zero column count for divisions. */
    private static final long[][] ENVS = {
            {100, 7, 132}, {1, 1, 1}, {4096, 12288, 132}, {65536, 128, 114}, {3, 1000000, 7},
            {2147483647, 1, 1}, {1, 2147483647, 170}, {5, 0, 3}, {32, 50257, 132}};

    /** What kevo's semantics say in corners the tables do not reach. */
    private static final List<String> EDGES = List.of(
            "min(true, 5)", "max(false, -3)", "min(1 < 2, 0)", "max(cols > 3, rows < 2, 0)", "cdiv(true, 1)",
            "false && 1 / 0 == 1", "true || rows / (cols - cols) == 1", "rows > 1 == cols > 1", "3 > 2 > 1",
            "TRUE", "MIN(rows, 3)", "Max(cols, sms)", "CDIV(rows, 7)", "0x10 * rows", "1e3 + cols", "cols / 2.0",
            "1.5 * 2 + rows", "1 - - - 1", "-rows * 2", "-(rows - cols) % 3", "(0 - rows) / 7", "cdiv(0 - rows, 7)",
            "cdiv(rows, 0 - 7)", "cdiv(0 - rows, 0 - 7)", "rows % (0 - 3)", "9223372036854775807 * 2 / 4 + rows",
            "9223372036854775807 + rows", "rows * cols * sms * sms * sms", "(rows * cols * sms * sms) / (sms * sms)",
            "(-9223372036854775807 - 1) / (cols - cols - 1)", "(-9223372036854775807 - 1) % (cols - cols - 1)",
            "0 - 9223372036854775807 - rows", "cols - 9223372036854775807 - 9223372036854775807",
            "!(rows < cols) && !false", "true + rows", "rows && true", "!rows", "min(rows)", "rows < cols < sms",
            "cdiv(rows * cols, 256) <= sms * 8 || cols % 4 != 0");

    @Test
    @HostCompilerTest
    void exprTestTablesMeanTheSameInC(@TempDir Path dir) throws Exception {
        List<String> table = exprTestTables();
        // ExprTest's tables hold about 150 expressions; far fewer means this test lost its source.
        assertTrue(table.size() > 100, "expected ExprTest's tables, found " + table.size() + " expressions");
        List<String> all = new ArrayList<>(table);
        all.addAll(EDGES);
        Outcome outcome = compare(dir, all);
        System.out.println("CExpressionTest: ExprTest tables and edges: " + outcome);
        assertTrue(outcome.compared() > 200, outcome.toString());
    }

    @Test
    @HostCompilerTest
    @Exhaustive
    void randomExpressionsMeanTheSameInC(@TempDir Path dir) throws Exception {
        long seed = 20261124L;
        Random random = new Random(seed);
        Set<String> texts = new LinkedHashSet<>();
        while (texts.size() < 1500) {
            String text = randomExpr(random, 4);
            try {
                Expr.parse(text);
                texts.add(text);
            } catch (RuntimeException e) {
                // not an expression kevo accepts (EvalEx throws more than IllegalArgumentException at odd input)
            }
        }
        Outcome outcome = compare(dir, new ArrayList<>(texts));
        System.out.println("CExpressionTest: random (seed " + seed + "): " + outcome);
        assertTrue(outcome.valuesAgreed() > 2000, "too few values compared: " + outcome);
        assertTrue(outcome.errorsAgreed() > 100, "too few failures compared: " + outcome);
    }

    @Test
    void fractionalConstantsThatMeetVariablesAreRefusedWithTheirPlace() {
        KevoException e = assertThrows(KevoException.class,
                () -> CExpression.integer(Expr.parse("cols * 0.5"), "plan 2 launch 1 'grid'", Map.of()));
        assertTrue(e.getMessage().contains("plan 2 launch 1 'grid'") && e.getMessage().contains("0.5"),
                e.getMessage());
        // folded by kevo's own arithmetic into a whole number: carried
        assertEquals("kevo_add(c, INT64_C(3), c->rows)", CExpression.integer(Expr.parse("1.5 * 2 + rows"), "x", Map.of()));
    }

    record Outcome(int expressions, int refused, int compared, int valuesAgreed, int errorsAgreed, int wideInKevo) {
    }

    private static Outcome compare(Path dir, List<String> texts) throws Exception {
        List<Expr> exprs = new ArrayList<>();
        List<String> intCode = new ArrayList<>();
        List<String> boolCode = new ArrayList<>();
        int refused = 0;
        for (String text : texts) {
            Expr expr;
            try {
                expr = Expr.parse(text);
            } catch (IllegalArgumentException e) {
                continue;
            }
            try {
                String i = CExpression.integer(expr, "test", Map.of());
                String b = CExpression.condition(expr, "test", Map.of());
                exprs.add(expr);
                intCode.add(i);
                boolCode.add(b);
            } catch (KevoException e) {
                // Only a constant kevo accepts but 64 bits cannot hold (a fraction, or beyond a long) is refused.
                assertTrue(e.getMessage().contains("cannot carry") && text.matches("(?s).*(\\d\\.\\d|\\d[eE]|\\d{19}).*"),
                        text + ": " + e.getMessage());
                refused++;
            }
        }
        StringBuilder c = new StringBuilder("#include <stdbool.h>\n");
        c.append(Prelude.resource(PlanHeader.class, "plan-runtime.h"));
        for (int i = 0; i < exprs.size(); i++) {
            c.append("// ").append(CText.comment(exprs.get(i).text())).append('\n');
            c.append("static int64_t i").append(i).append("(kevo_plan_ctx* c) { return ").append(intCode.get(i)).append("; }\n");
            c.append("static bool b").append(i).append("(kevo_plan_ctx* c) { return ").append(boolCode.get(i)).append("; }\n");
        }
        c.append("typedef int64_t (*int_fn)(kevo_plan_ctx*);\ntypedef bool (*bool_fn)(kevo_plan_ctx*);\n");
        c.append("static const int_fn ints[] = {");
        for (int i = 0; i < exprs.size(); i++) {
            c.append(i == 0 ? "" : ", ").append("i").append(i);
        }
        c.append("};\nstatic const bool_fn bools[] = {");
        for (int i = 0; i < exprs.size(); i++) {
            c.append(i == 0 ? "" : ", ").append("b").append(i);
        }
        c.append("};\nstatic const int64_t envs[][3] = {");
        for (long[] env : ENVS) {
            c.append("{").append(env[0]).append(", ").append(env[1]).append(", ").append(env[2]).append("}, ");
        }
        c.append("""
                };
                int main(void) {
                    for (unsigned k = 0; k < sizeof envs / sizeof envs[0]; k++) {
                        for (unsigned i = 0; i < sizeof ints / sizeof ints[0]; i++) {
                            kevo_plan_ctx a = {envs[k][0], envs[k][1], envs[k][2], 0};
                            int64_t v = ints[i](&a);
                            if (a.failure) printf("%u %u I ERR %s\\n", i, k, a.failure);
                            else printf("%u %u I OK %lld\\n", i, k, (long long)v);
                            kevo_plan_ctx b = {envs[k][0], envs[k][1], envs[k][2], 0};
                            bool w = bools[i](&b);
                            if (b.failure) printf("%u %u B ERR %s\\n", i, k, b.failure);
                            else printf("%u %u B OK %d\\n", i, k, w ? 1 : 0);
                        }
                    }
                    return 0;
                }
                """);
        Path source = dir.resolve("exprs.cpp");
        Files.writeString(source, c.toString());
        Path exe = Toolchain.compileHost(Toolchain.hostCompiler().orElseThrow(), source);
        String[] lines = Toolchain.succeed(dir, 120, exe.toString()).split("\n");
        assertEquals(exprs.size() * ENVS.length * 2, lines.length, "lines printed by the generated program");
        int values = 0;
        int errors = 0;
        int wide = 0;
        for (String line : lines) {
            String[] f = line.split(" ", 5);
            Expr expr = exprs.get(Integer.parseInt(f[0]));
            long[] e = ENVS[Integer.parseInt(f[1])];
            Expr.Env env = new Expr.Env(e[0], e[1], e[2], Map.of());
            String kevo = kevo(expr, env, f[2].equals("I"));
            String where = "'" + expr.text() + "' at " + env + (f[2].equals("I") ? " as an integer" : " as a condition");
            String generated = f[3].equals("OK") ? "OK " + f[4] : "ERR";
            if (generated.equals("ERR") && kevo.startsWith("OK") && f[4].contains("leaves 64-bit integers")) {
                // kevo computes exactly; 64-bit code may only fail where some intermediate leaves 64 bits.
                assertTrue(leavesLong(expr, expr.syntaxTree(), env), where + ": C failed (" + f[4]
                        + ") but no intermediate of kevo's leaves 64 bits; kevo gives " + kevo);
                wide++;
                continue;
            }
            assertEquals(kevo, generated, where + " (C said: " + line + ")");
            if (kevo.equals("ERR")) {
                errors++;
            } else {
                values++;
            }
        }
        return new Outcome(texts.size(), refused, lines.length, values, errors, wide);
    }

    private static String kevo(Expr expr, Expr.Env env, boolean integer) {
        try {
            return integer ? "OK " + expr.evalLong(env) : "OK " + (expr.evalBoolean(env) ? 1 : 0);
        } catch (RuntimeException e) {
            return "ERR";
        }
    }

    private static boolean leavesLong(Expr expr, ASTNode node, Expr.Env env) {
        try {
            if (expr.evaluate(node, env) instanceof BigDecimal v
                    && (v.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 || v.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0)) {
                return true;
            }
        } catch (RuntimeException e) {
            // a failing part: its own parts may still be wide
        }
        for (ASTNode p : node.getParameters()) {
            if (leavesLong(expr, p, env)) {
                return true;
            }
        }
        return false;
    }

    /** Every expression in ExprTest's parameter tables (the first column of each CSV row, every value string). */
    static List<String> exprTestTables() throws ClassNotFoundException {
        List<String> out = new ArrayList<>();
        for (Method m : Class.forName("dev.kevo.task.ExprTest").getDeclaredMethods()) {
            CsvSource csv = m.getAnnotation(CsvSource.class);
            if (csv != null) {
                for (String row : csv.value()) {
                    out.add(row.split(String.valueOf(csv.delimiter()), 2)[0].trim());
                }
            }
            ValueSource values = m.getAnnotation(ValueSource.class);
            if (values != null) {
                out.addAll(List.of(values.strings()));
            }
        }
        return out;
    }

    private static String randomExpr(Random r, int depth) {
        if (depth == 0 || r.nextInt(10) < 3) {
            return switch (r.nextInt(12)) {
                case 0, 1 -> "rows";
                case 2, 3 -> "cols";
                case 4 -> "sms";
                case 5 -> String.valueOf(r.nextInt(5_000_000));
                case 6 -> r.nextBoolean() ? "true" : "false";
                case 7 -> "9223372036854775807";
                default -> String.valueOf(r.nextInt(21));
            };
        }
        String a = maybeParens(r, randomExpr(r, depth - 1));
        String b = maybeParens(r, randomExpr(r, depth - 1));
        return switch (r.nextInt(16)) {
            case 0 -> a + " + " + b;
            case 1 -> a + " - " + b;
            case 2 -> a + " * " + b;
            case 3 -> a + " / " + b;
            case 4 -> a + " % " + b;
            case 5 -> a + " " + List.of("<", "<=", ">", ">=", "==", "!=").get(r.nextInt(6)) + " " + b;
            case 6 -> a + " && " + b;
            case 7 -> a + " || " + b;
            case 8 -> "-" + a;
            case 9 -> "!" + a;
            case 10 -> "cdiv(" + a + ", " + b + ")";
            case 11 -> (r.nextBoolean() ? "min(" : "max(") + a + ", " + b + ")";
            case 12 -> (r.nextBoolean() ? "min(" : "max(") + a + ", " + b + ", " + randomExpr(r, depth - 1) + ")";
            case 13 -> "(" + a + " - " + b + ") * " + randomExpr(r, depth - 1);
            default -> a + " " + List.of("+", "-", "*", "/", "%").get(r.nextInt(5)) + " " + b + " "
                    + List.of("<", "<=", "==").get(r.nextInt(3)) + " " + randomExpr(r, depth - 1);
        };
    }

    private static String maybeParens(Random r, String text) {
        return r.nextBoolean() ? "(" + text + ")" : text;
    }
}
