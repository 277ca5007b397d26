package dev.kevo.task;

import dev.kevo.data.Shape;
import com.ezylang.evalex.EvaluationException;
import com.ezylang.evalex.Expression;
import com.ezylang.evalex.config.ExpressionConfiguration;
import com.ezylang.evalex.config.MapBasedFunctionDictionary;
import com.ezylang.evalex.config.MapBasedOperatorDictionary;
import com.ezylang.evalex.data.EvaluationValue;
import com.ezylang.evalex.functions.AbstractFunction;
import com.ezylang.evalex.functions.FunctionIfc;
import com.ezylang.evalex.functions.FunctionParameter;
import com.ezylang.evalex.functions.basic.MaxFunction;
import com.ezylang.evalex.functions.basic.MinFunction;
import com.ezylang.evalex.operators.AbstractOperator;
import com.ezylang.evalex.operators.InfixOperator;
import com.ezylang.evalex.operators.OperatorIfc;
import com.ezylang.evalex.operators.PrefixOperator;
import com.ezylang.evalex.operators.arithmetic.InfixMinusOperator;
import com.ezylang.evalex.operators.arithmetic.InfixMultiplicationOperator;
import com.ezylang.evalex.operators.arithmetic.InfixPlusOperator;
import com.ezylang.evalex.operators.arithmetic.PrefixMinusOperator;
import com.ezylang.evalex.operators.arithmetic.PrefixPlusOperator;
import com.ezylang.evalex.operators.booleans.InfixEqualsOperator;
import com.ezylang.evalex.operators.booleans.InfixGreaterEqualsOperator;
import com.ezylang.evalex.operators.booleans.InfixGreaterOperator;
import com.ezylang.evalex.operators.booleans.InfixLessEqualsOperator;
import com.ezylang.evalex.operators.booleans.InfixLessOperator;
import com.ezylang.evalex.operators.booleans.InfixNotEqualsOperator;
import com.ezylang.evalex.parser.ASTNode;
import com.ezylang.evalex.parser.ParseException;
import com.ezylang.evalex.parser.Token;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A launch-plan expression: integer arithmetic and comparisons over {@code rows}, {@code cols} and
 * {@code sms}, and over a kernel file's integer knobs when it declares some. The operator and function tables are replaced wholesale, so nothing beyond what the
 * kernel contract documents exists: no strings, no dates, no powers, no implicit multiplication.
 * {@code /} and {@code %} truncate like C, so a plan reads the same as the kernel that uses it.
 */
public final class Expr {

    /** The variables every plan may name. */
    public static final Set<String> VARIABLES = Set.of("rows", "cols", "sms");
    /** An attention shape's variables: {@link Shape#ATTENTION_VARIABLES}. */
    public static final Set<String> ATTENTION_VARIABLES = Shape.ATTENTION_VARIABLES;
    /** What a knob's name looks like: an upper-case C identifier, so it cannot be taken for a variable. */
    public static final Pattern KNOB_NAME = Pattern.compile("[A-Z][A-Z0-9_]*");
    /**
     * The longest expression text accepted, in characters. The plans kevo ships and renders stay under 200; a header
     * that needs more is better written as a knob or a second plan. Checked before anything parses the text.
     */
    public static final int MAX_LENGTH = 1000;
    /**
     * The deepest syntax tree accepted: operators and function calls nested in one another ({@code a + b + c} is 3
     * deep, as {@code a + (b + c)} is). Evaluation walks the tree recursively, and so does the export's translation
     * to C, so an unbounded depth is a stack overflow in kevo; 64 is several times what any shipped plan uses, and a
     * few kilobytes of stack at most on any thread.
     */
    public static final int MAX_DEPTH = 64;

    /** Operators on integers that give an integer: + and - also as signs; / and % truncate like C. */
    private static final List<Map.Entry<String, OperatorIfc>> ARITHMETIC_TABLE = List.of(
            op("+", new Additive(new InfixPlusOperator())), op("-", new Additive(new InfixMinusOperator())),
            op("*", new Multiplicative(new InfixMultiplicationOperator())), op("/", new IntegerDivision()),
            op("%", new IntegerRemainder()),
            op("+", new Sign(new PrefixPlusOperator())), op("-", new Sign(new PrefixMinusOperator())));
    /** Operators on integers that give a condition. */
    private static final List<Map.Entry<String, OperatorIfc>> COMPARISON_TABLE = List.of(
            op("<", new Comparison(new InfixLessOperator())),
            op("<=", new Comparison(new InfixLessEqualsOperator())),
            op(">", new Comparison(new InfixGreaterOperator())),
            op(">=", new Comparison(new InfixGreaterEqualsOperator())),
            op("==", new Equality(new InfixEqualsOperator())),
            op("!=", new Equality(new InfixNotEqualsOperator())));
    /** Operators on conditions. */
    private static final List<Map.Entry<String, OperatorIfc>> LOGIC_TABLE = List.of(
            op("&&", new And()), op("||", new Or()), op("!", new Not()));

    /** The symbols of each kind of operator, for a model's prompt; nothing else parses. */
    public static final List<String> ARITHMETIC = symbols(ARITHMETIC_TABLE);
    public static final List<String> COMPARISONS = symbols(COMPARISON_TABLE);
    public static final List<String> LOGIC = symbols(LOGIC_TABLE);
    /** The functions by name, each with its parameters ({@link FunctionIfc#getFunctionParameterDefinitions()}). */
    public static final Map<String, FunctionIfc> FUNCTIONS = functions();

    private static final ExpressionConfiguration CONFIG = ExpressionConfiguration.builder()
            .operatorDictionary(MapBasedOperatorDictionary.ofOperators(Stream.of(ARITHMETIC_TABLE, COMPARISON_TABLE,
                    LOGIC_TABLE).flatMap(List::stream).toArray(Expr::entries)))
            .functionDictionary(MapBasedFunctionDictionary.ofFunctions(FUNCTIONS.entrySet().stream()
                    .toArray(Expr::functionEntries)))
            .defaultConstants(Map.of("true", EvaluationValue.booleanValue(true),
                    "false", EvaluationValue.booleanValue(false)))
            .implicitMultiplicationAllowed(false)
            .arraysAllowed(false)
            .structuresAllowed(false)
            .singleQuoteStringLiteralsAllowed(false)
            .build();

    private final String text;
    private final Expression parsed;

    private Expr(String text, Expression parsed) {
        this.text = text;
        this.parsed = parsed;
    }

    /**
     * Parses and validates an expression.
     *
     * @throws IllegalArgumentException with a message naming the problem
     */
    public static Expr parse(String text) {
        return parse(text, Set.of(), false, Set.of());
    }

    /**
     * Parses an expression that may also use the named knobs; any other upper-case name is an unknown knob.
     *
     * @throws IllegalArgumentException with a message naming the problem
     */
    public static Expr parse(String text, Set<String> knobs) {
        return parse(text, knobs, false, Set.of());
    }

    /**
     * Parses an expression that may use any knob-like name; which knobs exist is checked later, against the
     * header that declares them ({@link #knobsUsed()}).
     */
    public static Expr parseAllowingKnobs(String text) {
        return parse(text, Set.of(), true, Set.of());
    }

    /** As {@link #parseAllowingKnobs(String)}; an unknown name's message lists {@code declared}, the file's knobs. */
    public static Expr parseAllowingKnobs(String text, Set<String> declared) {
        return parse(text, declared, true, Set.of());
    }

    /**
     * As {@link #parseAllowingKnobs(String, Set)}, with {@code variables} (some of {@link #ATTENTION_VARIABLES}) allowed
     * beside rows, cols and sms: what the operator's plans may name.
     */
    public static Expr parseAllowingKnobs(String text, Set<String> declared, Set<String> variables) {
        return parse(text, declared, true, variables);
    }

    private static Expr parse(String text, Set<String> knobs, boolean anyKnob, Set<String> variables) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty expression");
        }
        if (text.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(abbreviated(text) + ": " + text.length() + " characters, over the "
                    + MAX_LENGTH + "-character limit for an expression");
        }
        Expression expression = new Expression(text, CONFIG);
        try {
            // EvalEx builds the tree without recursion; everything after this point recurses over it.
            int depth = depth(expression.getAbstractSyntaxTree());
            if (depth > MAX_DEPTH) {
                throw new IllegalArgumentException(abbreviated(text) + ": nested " + depth + " deep, over the "
                        + MAX_DEPTH + "-level limit for an expression");
            }
            expression.validate();
            for (ASTNode node : expression.getAllASTNodes()) {
                if (node.getToken().getType() == Token.TokenType.STRING_LITERAL) {
                    throw new IllegalArgumentException("'" + text + "': strings are not allowed ("
                            + node.getToken().getValue() + ")");
                }
            }
            for (String variable : expression.getUsedVariables()) {
                if (knobs.contains(variable) || (anyKnob && KNOB_NAME.matcher(variable).matches())) {
                    continue;
                }
                if (KNOB_NAME.matcher(variable).matches()) {
                    throw new IllegalArgumentException("'" + text + "': unknown knob '" + variable + "' ("
                            + (knobs.isEmpty() ? "the header declares no knobs" : "the header declares "
                            + String.join(", ", new TreeSet<>(knobs))) + ")");
                }
                if (!VARIABLES.contains(variable) && !variables.contains(variable)) {
                    throw new IllegalArgumentException("'" + text + "': unknown name '" + variable
                            + "' (expressions may use rows, cols, sms" + (variables.isEmpty() ? ""
                            : ", " + String.join(", ", new TreeSet<>(variables))) + (knobs.isEmpty() ? ""
                            : " and the knobs " + String.join(", ", new TreeSet<>(knobs))) + ")");
                }
            }
        } catch (ParseException e) {
            throw new IllegalArgumentException("'" + text + "': " + e.getMessage());
        }
        return new Expr(text, expression);
    }

    /** The height of a syntax tree (a lone name or number is 1), walked with a stack of its own, not the thread's. */
    private static int depth(ASTNode root) {
        int deepest = 0;
        ArrayDeque<Map.Entry<ASTNode, Integer>> pending = new ArrayDeque<>();
        pending.push(Map.entry(root, 1));
        while (!pending.isEmpty()) {
            Map.Entry<ASTNode, Integer> at = pending.pop();
            deepest = Math.max(deepest, at.getValue());
            for (ASTNode child : at.getKey().getParameters()) {
                pending.push(Map.entry(child, at.getValue() + 1));
            }
        }
        return deepest;
    }

    /** The start of a long expression, for a message that must stay one readable line. */
    private static String abbreviated(String text) {
        return "'" + (text.length() <= 40 ? text : text.substring(0, 40) + "...") + "'";
    }

    public static Expr constant(long value) {
        return parse(Long.toString(value));
    }

    public String text() {
        return text;
    }

    /** Every name this expression uses: rows, cols, sms and knobs. */
    public Set<String> namesUsed() {
        try {
            return new LinkedHashSet<>(parsed.getUsedVariables());
        } catch (ParseException e) {
            throw new IllegalStateException("validated at parse: " + text, e);
        }
    }

    /** The names this expression uses that are not rows, cols, sms or an attention shape's: knobs. */
    public Set<String> knobsUsed() {
        Set<String> used = namesUsed();
        used.removeAll(VARIABLES);
        used.removeAll(ATTENTION_VARIABLES);
        return used;
    }

    /** Evaluates to an integer; fractions, booleans and values outside a long are errors. */
    public long evalLong(Env env) {
        EvaluationValue value = evaluate(env);
        if (!value.isNumberValue()) {
            throw new IllegalArgumentException("'" + text + "' is not an integer expression");
        }
        BigDecimal number = value.getNumberValue();
        try {
            return number.stripTrailingZeros().toBigIntegerExact().longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' gives " + number.toPlainString() + " at " + env
                    + ", not a 64-bit integer");
        }
    }

    /** Evaluates a condition; numbers are not silently taken as truth values. */
    public boolean evalBoolean(Env env) {
        EvaluationValue value = evaluate(env);
        if (!value.isBooleanValue()) {
            throw new IllegalArgumentException("'" + text + "' is not a condition (use a comparison)");
        }
        return value.getBooleanValue();
    }

    /** The parsed syntax tree, for code that carries a plan into another language (kevo export). */
    public ASTNode syntaxTree() {
        try {
            return parsed.getAbstractSyntaxTree();
        } catch (ParseException e) {
            throw new IllegalStateException("'" + text + "' was validated when parsed: " + e.getMessage(), e);
        }
    }

    /**
     * Evaluates one node of {@link #syntaxTree()} exactly as the whole expression would: a {@link BigDecimal} or a
     * {@link Boolean}. Lets a translator fold constant parts with kevo's own arithmetic.
     */
    public Object evaluate(ASTNode node, Env env) {
        try {
            EvaluationValue value = bound(env).evaluateSubtree(node);
            return value.isBooleanValue() ? (Object) value.getBooleanValue() : value.getNumberValue();
        } catch (EvaluationException | ParseException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' at " + env + ": " + e.getMessage());
        }
    }

    private EvaluationValue evaluate(Env env) {
        try {
            return bound(env).evaluate();
        } catch (EvaluationException | ParseException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' at " + env + ": " + e.getMessage());
        }
    }

    /** A copy of the parsed expression with every name of the environment given its value. */
    private Expression bound(Env env) throws ParseException {
        Expression bound = parsed.copy().with("rows", env.rows()).and("cols", env.cols()).and("sms", env.sms())
                .and("batch", env.batch()).and("heads", env.heads()).and("queries", env.queries())
                .and("mask_kind", env.maskKind());
        for (Map.Entry<String, Long> knob : env.knobs().entrySet()) {
            bound = bound.and(knob.getKey(), knob.getValue());
        }
        return bound;
    }

    @Override
    public String toString() {
        return text;
    }

    /**
     * The values an expression is evaluated with: the shape (its attention layout too: a plain shape is one batch
     * entry of one head whose queries are its rows, masked by nothing), the device, and the file's integer knobs.
     */
    public record Env(long rows, long cols, long sms, Map<String, Long> knobs, long batch, long heads, long queries,
                      long maskKind) {
        public Env {
            knobs = Map.copyOf(knobs);
        }

        /** A plain shape's environment. */
        public Env(long rows, long cols, long sms, Map<String, Long> knobs) {
            this(rows, cols, sms, knobs, 1, 1, rows, 0);
        }

        public static Env of(Shape shape, int sms) {
            return new Env(shape.rows(), shape.cols(), sms, Map.of(), shape.batch(), shape.heads(), shape.queries(),
                    shape.mask().ordinal());
        }

        public Env withKnobs(Map<String, Long> values) {
            return new Env(rows, cols, sms, values, batch, heads, queries, maskKind);
        }

        /** {@code rows=.., cols=.., sms=..}, the attention layout where it is not a plain shape's, then the knobs. */
        @Override
        public String toString() {
            StringBuilder out = new StringBuilder("rows=" + rows + ", cols=" + cols + ", sms=" + sms);
            if (batch != 1 || heads != 1 || queries != rows || maskKind != 0) {
                out.append(", batch=").append(batch).append(", heads=").append(heads).append(", queries=")
                        .append(queries).append(", mask_kind=").append(maskKind);
            }
            new TreeMap<>(knobs).forEach((k, v) -> out.append(", ").append(k).append('=').append(v));
            return out.toString();
        }
    }

    private static Map.Entry<String, OperatorIfc> op(String symbol, OperatorIfc operator) {
        return Map.entry(symbol, operator);
    }

    private static Map<String, FunctionIfc> functions() {
        Map<String, FunctionIfc> functions = new LinkedHashMap<>();
        functions.put("min", new MinFunction());
        functions.put("max", new MaxFunction());
        functions.put("cdiv", new CeilDivision());
        return Collections.unmodifiableMap(functions);
    }

    private static List<String> symbols(List<Map.Entry<String, OperatorIfc>> table) {
        return table.stream().map(Map.Entry::getKey).distinct().toList();
    }

    @SuppressWarnings("unchecked")
    private static Map.Entry<String, OperatorIfc>[] entries(int size) {
        return new Map.Entry[size];
    }

    @SuppressWarnings("unchecked")
    private static Map.Entry<String, FunctionIfc>[] functionEntries(int size) {
        return new Map.Entry[size];
    }

    private static BigInteger integer(EvaluationValue value) throws EvaluationException {
        try {
            if (value.isNumberValue()) {
                return value.getNumberValue().toBigIntegerExact();
            }
        } catch (ArithmeticException e) {
            // falls through to the error below
        }
        // Not an EvaluationException: it needs the token, which the callers here do not have (a null one made the
        // library throw NullPointerException, and kevo check report worker-crashed for a plan mistake).
        throw new ArithmeticException("integer operands expected, got " + describe(value));
    }

    private static void require(Token token, boolean numbers, EvaluationValue... operands) throws EvaluationException {
        for (EvaluationValue operand : operands) {
            if (numbers ? !operand.isNumberValue() : !operand.isBooleanValue()) {
                throw new EvaluationException(token, "'" + token.getValue() + "' needs "
                        + (numbers ? "numbers" : "conditions") + ", got " + describe(operand));
            }
        }
    }

    private static String describe(EvaluationValue value) {
        return value.isBooleanValue() ? "a condition (" + value.getBooleanValue() + ")" : String.valueOf(value.getValue());
    }

    /**
     * Type-checks a built-in operator's operands before delegating: numbers for arithmetic and comparisons, so
     * that {@code 1 < 2 < 3} or {@code true + 1} is an error rather than a surprise. One class per precedence,
     * since EvalEx reads precedence from the class's annotation.
     */
    private abstract static class Checked extends AbstractOperator {
        private final OperatorIfc delegate;

        Checked(OperatorIfc delegate) {
            this.delegate = delegate;
        }

        @Override
        public EvaluationValue evaluate(Expression expression, Token token, EvaluationValue... operands)
                throws EvaluationException {
            require(token, true, operands);
            return delegate.evaluate(expression, token, operands);
        }
    }

    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_ADDITIVE)
    static final class Additive extends Checked {
        Additive(OperatorIfc delegate) {
            super(delegate);
        }
    }

    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_MULTIPLICATIVE)
    static final class Multiplicative extends Checked {
        Multiplicative(OperatorIfc delegate) {
            super(delegate);
        }
    }

    @PrefixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_UNARY)
    static final class Sign extends Checked {
        Sign(OperatorIfc delegate) {
            super(delegate);
        }
    }

    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_COMPARISON)
    static final class Comparison extends Checked {
        Comparison(OperatorIfc delegate) {
            super(delegate);
        }
    }

    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_EQUALITY)
    static final class Equality extends Checked {
        Equality(OperatorIfc delegate) {
            super(delegate);
        }
    }

    /** Logical operators on conditions only: a number is never silently a truth value. */
    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_AND)
    static final class And extends AbstractOperator {
        @Override
        public EvaluationValue evaluate(Expression expression, Token token, EvaluationValue... operands)
                throws EvaluationException {
            require(token, false, operands);
            return EvaluationValue.booleanValue(operands[0].getBooleanValue() && operands[1].getBooleanValue());
        }
    }

    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_OR)
    static final class Or extends AbstractOperator {
        @Override
        public EvaluationValue evaluate(Expression expression, Token token, EvaluationValue... operands)
                throws EvaluationException {
            require(token, false, operands);
            return EvaluationValue.booleanValue(operands[0].getBooleanValue() || operands[1].getBooleanValue());
        }
    }

    @PrefixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_UNARY)
    static final class Not extends AbstractOperator {
        @Override
        public EvaluationValue evaluate(Expression expression, Token token, EvaluationValue... operands)
                throws EvaluationException {
            require(token, false, operands);
            return EvaluationValue.booleanValue(!operands[0].getBooleanValue());
        }
    }

    private static BigInteger divisor(Token token, BigInteger value) throws EvaluationException {
        if (value.signum() == 0) {
            throw new EvaluationException(token, "division by zero");
        }
        return value;
    }

    /** C-style truncating division. */
    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_MULTIPLICATIVE)
    static final class IntegerDivision extends AbstractOperator {
        @Override
        public EvaluationValue evaluate(Expression expression, Token token, EvaluationValue... operands)
                throws EvaluationException {
            BigInteger a = integer(operands[0]);
            BigInteger b = divisor(token, integer(operands[1]));
            return EvaluationValue.numberValue(new BigDecimal(a.divide(b)));
        }
    }

    /** C-style remainder (sign of the dividend). */
    @InfixOperator(precedence = OperatorIfc.OPERATOR_PRECEDENCE_MULTIPLICATIVE)
    static final class IntegerRemainder extends AbstractOperator {
        @Override
        public EvaluationValue evaluate(Expression expression, Token token, EvaluationValue... operands)
                throws EvaluationException {
            BigInteger a = integer(operands[0]);
            BigInteger b = divisor(token, integer(operands[1]));
            return EvaluationValue.numberValue(new BigDecimal(a.remainder(b)));
        }
    }

    /** {@code cdiv(a, b)}: the number of blocks of size b that cover a. */
    @FunctionParameter(name = "a")
    @FunctionParameter(name = "b")
    static final class CeilDivision extends AbstractFunction {
        @Override
        public EvaluationValue evaluate(Expression expression, Token token, EvaluationValue... arguments)
                throws EvaluationException {
            BigDecimal a = new BigDecimal(integer(arguments[0]));
            BigDecimal b = new BigDecimal(divisor(token, integer(arguments[1])));
            return EvaluationValue.numberValue(a.divide(b, 0, RoundingMode.CEILING));
        }
    }
}
