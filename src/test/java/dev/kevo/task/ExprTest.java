package dev.kevo.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ExprTest {

    private static final Expr.Env ENV = new Expr.Env(100, 7, 132, Map.of());

    private static long eval(String text) {
        return Expr.parse(text).evalLong(ENV);
    }

    private static boolean cond(String text) {
        return Expr.parse(text).evalBoolean(ENV);
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in: " + message);
        }
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = ';', value = {
            "7 / 2; 3",
            "-7 / 2; -3",
            "7 / -2; -3",
            "-7 / -2; 3",
            "7 % 2; 1",
            "-7 % 2; -1",
            "7 % -2; 1",
            "-7 % -2; -1",
            "6 % 3; 0",
            "1 / 3; 0",
            "-1 / 3; 0",
            "7 / 2 * 2; 6",
            "rows / 3 * 3 + rows % 3; 100",
            "cols / 2; 3",
            "(0 - cols) / 2; -3",
            "(0 - cols) % 4; -3",
    })
    void divisionAndRemainderTruncateLikeC(String text, long expected) {
        assertEquals(expected, eval(text));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = ';', value = {
            "cdiv(7, 2); 4",
            "cdiv(8, 2); 4",
            "cdiv(1, 1024); 1",
            "cdiv(0, 5); 0",
            "cdiv(rows, 8); 13",
            "cdiv(rows, cols); 15",
            "cdiv(rows * cols, 256); 3",
            "cdiv(-7, 2); -3",
    })
    void cdivIsCeilingDivision(String text, long expected) {
        assertEquals(expected, eval(text));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = ';', value = {
            "min(3, 1, 2); 1",
            "max(3, 9, 2, 5); 9",
            "min(rows, cols, sms); 7",
            "max(rows, cols, sms); 132",
            "min(5); 5",
            "max(1, min(cdiv(cols, 2048), cdiv(sms * 4, rows))); 1",
            "min(-4, 2); -4",
            "max(-4, -2, -9); -2",
            "min(7 / 2, 5); 3",
    })
    void minAndMaxTakeSeveralArguments(String text, long expected) {
        assertEquals(expected, eval(text));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = ';', value = {
            "2 + 3 * 4; 14",
            "(2 + 3) * 4; 20",
            "10 - 4 - 3; 3",
            "100 / 10 / 5; 2",
            "2 * 3 % 4; 2",
            "2 + 3 % 2; 3",
            "-2 * 3; -6",
            "10 - -3; 13",
            "-(3 + 4); -7",
            "+3; 3",
            "((rows)); 100",
            "rows * cols + sms; 832",
            "sms - rows / cols; 118",
    })
    void precedenceAndAssociativity(String text, long expected) {
        assertEquals(expected, eval(text));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ';', value = {
            "rows < cols; false",
            "rows > cols; true",
            "cols <= 7; true",
            "cols < 7; false",
            "cols >= 8; false",
            "sms >= 132; true",
            "cols == 7; true",
            "cols != 7; false",
            "rows >= 100 && cols < 8; true",
            "rows >= 100 && cols > 8; false",
            "rows < 1 || cols == 7; true",
            "rows < 1 || cols == 8; false",
            "!(cols == 7); false",
            "!(cols == 8); true",
            "true; true",
            "false; false",
            "!true; false",
            "true && false || true; true",
            "false || true && false; false",
            "rows < 1 || !(cols == 7); false",
            "cols + 1 == 8; true",
            "rows * cols <= 700 && cols % 7 == 0; true",
    })
    void conditions(String text, boolean expected) {
        assertEquals(expected, cond(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1 / 0", "5 % 0", "cdiv(5, 0)", "rows / (cols - 7)", "sms % (rows - 100)"})
    void divisionByZeroIsReportedWithTheEnvironment(String text) {
        Expr expr = Expr.parse(text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> expr.evalLong(ENV));
        assertContains(e.getMessage(), "division by zero", "'" + text + "'", "rows=100", "cols=7", "sms=132");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "foo + 1; foo",
            "rows + bar; bar",
            "x; x",
            "Rows * 2; Rows",
            "cdiv(rows, warps); warps",
    })
    void unknownVariablesAreRejectedAtParseTime(String text, String name) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(text));
        assertContains(e.getMessage(), "unknown name '" + name + "'", "rows, cols, sms");
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
            "sqrt(4); sqrt",
            "pow(2, 3); pow",
            "abs(-1); abs",
            "if(true, 1, 2); if",
            "floor(rows); floor",
            "SQRT(4); SQRT",
    })
    void onlyMinMaxAndCdivExist(String text, String function) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(text));
        assertContains(e.getMessage(), function);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2 ^ 3", "rows ? 1 : 2", "'abc'", "rows[0]", "cdiv(1)", "cdiv(1, 2, 3)", "max()"})
    void otherSyntaxIsRejectedAtParseTime(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(text));
        assertContains(e.getMessage(), text);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2 rows", "2rows", "2 (3)", "rows cols", "(rows)(cols)"})
    void implicitMultiplicationIsRejected(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(text));
        assertContains(e.getMessage(), "'" + text + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   "})
    void emptyExpressionsAreRejected(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(text));
        assertContains(e.getMessage(), "empty");
    }

    /**
     * Expressions are bounded before anything recurses over them: an 8000-term sum once overflowed the stack while
     * it was evaluated, and {@code kevo check} died with a StackOverflowError instead of a line about the file.
     */
    @Test
    void anExpressionDeeperThanTheLimitIsOneLineNamingTheLimit() {
        // a + b + c nests to the left: n terms are n deep. At the limit it parses and evaluates; one more does not.
        String atLimit = "rows" + " + 0".repeat(Expr.MAX_DEPTH - 1);
        assertEquals(100, eval(atLimit));
        for (String deep : new String[] {atLimit + " + 0", "rows" + " + 0".repeat(8000).substring(0, 900),
                "min(".repeat(Expr.MAX_DEPTH) + "rows" + ", 1)".repeat(Expr.MAX_DEPTH),
                "-(".repeat(Expr.MAX_DEPTH) + "rows" + ")".repeat(Expr.MAX_DEPTH)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(deep));
            assertContains(e.getMessage(), "deep, over the " + Expr.MAX_DEPTH + "-level limit");
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getMessage().length() < 200, "the message quotes the start only: " + e.getMessage());
        }
    }

    /**
     * A fraction or a condition where an integer is needed is a plan mistake in one line, not an internal error: it once
     * made the expression library throw NullPointerException and {@code kevo check} report worker-crashed.
     */
    @Test
    void aFractionOrAConditionWhereAnIntegerIsNeededIsOneLine() {
        for (String bad : new String[] {"rows / 2.5", "(rows > 1) / 2", "cdiv(rows, cols > 1)", "rows % 1.5"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> eval(bad));
            assertContains(e.getMessage(), "integer operands expected");
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
    }

    /** Parentheses alone add no depth, so a long text must be bounded by its own limit, checked before parsing. */
    @Test
    void anExpressionLongerThanTheLimitIsOneLineNamingTheLimit() {
        String longest = "(".repeat(Expr.MAX_LENGTH / 2 - 2) + "rows" + ")".repeat(Expr.MAX_LENGTH / 2 - 2);
        assertEquals(Expr.MAX_LENGTH, longest.length());
        assertEquals(100, eval(longest));
        for (String tooLong : new String[] {"(" + longest + ")", "rows" + " + 0".repeat(8000)}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(tooLong));
            assertContains(e.getMessage(), tooLong.length() + " characters, over the " + Expr.MAX_LENGTH
                    + "-character limit");
            assertTrue(e.getMessage().length() < 200, "the message quotes the start only: " + e.getMessage());
        }
    }

    @Test
    void stringsAreRejectedWhenParsed() {
        for (String text : new String[] {"\"abc\"", "\"5\" * 2", "\"5\" + 2", "rows + \"1\""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Expr.parse(text), text);
            assertContains(e.getMessage(), "strings are not allowed");
        }
    }

    @Test
    void stringsAreRejectedEverywhere() {
        for (String text : new String[] {"min(\"a\", 1)", "max(\"9\", 1)"}) {
            assertThrows(IllegalArgumentException.class, () -> Expr.parse(text).evalLong(ENV), text);
        }
        for (String text : new String[] {"\"a\" == \"a\"", "\"a\" != \"b\"", "cols < \"z\""}) {
            assertThrows(IllegalArgumentException.class, () -> Expr.parse(text).evalBoolean(ENV), text);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "rows", "cols * 2", "cdiv(rows, 8)", "min(rows, cols)"})
    void evalBooleanRejectsNumbers(String text) {
        Expr expr = Expr.parse(text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> expr.evalBoolean(ENV));
        assertContains(e.getMessage(), "'" + text + "'", "not a condition");
    }

    @ParameterizedTest
    @ValueSource(strings = {"cols && 1", "rows || 0", "!cols", "true && rows", "1 < 2 < 3"})
    void logicalOperatorsRejectNumbers(String text) {
        assertThrows(IllegalArgumentException.class, () -> Expr.parse(text).evalBoolean(ENV));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rows < cols", "true", "cols == 7 && rows > 1"})
    void evalLongRejectsConditions(String text) {
        Expr expr = Expr.parse(text);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> expr.evalLong(ENV));
        assertContains(e.getMessage(), "'" + text + "'", "not an integer expression");
    }

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = ';', value = {
            "3.0; 3",
            "1.5 * 2; 3",
            "cols / 2.0; 3",
            "1e3; 1000",
            "0.25 * 400; 100",
    })
    void evalLongAcceptsFractionFreeResults(String text, long expected) {
        assertEquals(expected, eval(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1.5", "cols * 0.5", "0.1 + rows"})
    void evalLongRejectsFractions(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> eval(text));
        assertContains(e.getMessage(), "'" + text + "'", "not a 64-bit integer");
    }

    @Test
    void evalLongRejectsValuesBeyondLong() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> eval("9223372036854775807 + 1"));
        assertContains(e.getMessage(), "9223372036854775808", "not a 64-bit integer");
        assertEquals(Long.MAX_VALUE, eval("9223372036854775806 + 1"));
    }

    @Test
    void variablesComeFromTheEnvironment() {
        Expr expr = Expr.parse("rows * 1000000 + cols * 1000 + sms");
        assertEquals(100_007_132L, expr.evalLong(ENV));
        assertEquals(3_004_005L, expr.evalLong(new Expr.Env(3, 4, 5, Map.of())));
        // long arithmetic: no int overflow for big shapes
        assertEquals(4096L * 12288 * 132, Expr.parse("rows * cols * sms").evalLong(new Expr.Env(4096, 12288, 132,
                Map.of())));
    }

    @Test
    void anExprCanBeEvaluatedRepeatedlyWithDifferentEnvironments() {
        Expr expr = Expr.parse("cols <= 512");
        assertTrue(expr.evalBoolean(new Expr.Env(1, 512, 1, Map.of())));
        assertFalse(expr.evalBoolean(new Expr.Env(1, 513, 1, Map.of())));
        assertTrue(expr.evalBoolean(new Expr.Env(1, 1, 1, Map.of())));
    }

    @Test
    void constantAndTextRoundTrip() {
        assertEquals(42, Expr.constant(42).evalLong(ENV));
        assertEquals(-5, Expr.constant(-5).evalLong(ENV));
        assertEquals("cdiv(rows, 8)", Expr.parse("cdiv(rows, 8)").text());
        assertEquals("cdiv(rows, 8)", Expr.parse("cdiv(rows, 8)").toString());
    }
}
