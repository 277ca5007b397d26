package dev.kevo.export;

import com.ezylang.evalex.parser.ASTNode;
import com.ezylang.evalex.parser.Token;
import dev.kevo.KevoException;
import dev.kevo.task.Expr;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Translates one of kevo's plan expressions into host C++ over the runtime in {@code plan-runtime.h}, from kevo's
 * own syntax tree: so the operators group exactly as kevo grouped them, every operation is a call or a
 * parenthesised term, and the arithmetic fails where kevo's fails. Parts without variables are folded with
 * kevo's own evaluator (a literal such as {@code 1e3} or {@code 1.5 * 2} means what kevo says it means); a part
 * kevo always rejects (a condition added to a number, a constant division by zero) makes the whole expression
 * fail whenever it is evaluated, which is when kevo fails it too, since kevo evaluates every operand.
 */
final class CExpression {

    /** The C names of the variables, as fields of the {@code kevo_plan_ctx* c} every generated function takes. */
    static final String CONTEXT = "c";


    private enum Type { INT, BOOL }

    private record Code(String text, Type type) {
    }

    /** Something kevo rejects whenever it evaluates the expression. */
    private static final class AlwaysFails extends RuntimeException {
        AlwaysFails(String why) {
            super(why, null, false, false);
        }
    }

    private final Expr expr;
    private final String at;
    /** Where constant parts are folded: the file's knobs are constants of the export, at their current values. */
    private final Expr.Env constants;

    private CExpression(Expr expr, String at, Map<String, Long> knobs) {
        this.expr = expr;
        this.at = at;
        this.constants = new Expr.Env(1, 1, 1, Map.of()).withKnobs(knobs);
    }

    /**
     * A C expression of type {@code int64_t}.
     *
     * @param at where the expression sits in the header, for the one-line error when it cannot be carried
     * @throws KevoException (input) for a constant kevo accepts but 64-bit integers cannot hold, such as 0.5
     */
    static String integer(Expr expr, String at, Map<String, Long> knobs) {
        CExpression e = new CExpression(expr, at, knobs);
        try {
            Code code = e.emit(expr.syntaxTree());
            if (code.type() != Type.INT) {
                throw new AlwaysFails("'" + expr.text() + "' is not an integer expression");
            }
            return code.text();
        } catch (AlwaysFails f) {
            return "kevo_fail(" + CONTEXT + ", " + CText.string(f.getMessage()) + ")";
        }
    }

    /** A C expression of type {@code bool}; see {@link #integer}. */
    static String condition(Expr expr, String at, Map<String, Long> knobs) {
        CExpression e = new CExpression(expr, at, knobs);
        try {
            Code code = e.emit(expr.syntaxTree());
            if (code.type() != Type.BOOL) {
                throw new AlwaysFails("'" + expr.text() + "' is not a condition (use a comparison)");
            }
            return code.text();
        } catch (AlwaysFails f) {
            return "(kevo_fail(" + CONTEXT + ", " + CText.string(f.getMessage()) + ") != 0)";
        }
    }

    private Code emit(ASTNode node) {
        if (!usesVariables(node)) {
            return constant(node);
        }
        Token token = node.getToken();
        List<ASTNode> params = node.getParameters();
        String op = token.getValue();
        return switch (token.getType()) {
            case VARIABLE_OR_CONSTANT -> new Code(CONTEXT + "->" + op, Type.INT);
            case INFIX_OPERATOR -> infix(op, emit(params.get(0)), emit(params.get(1)));
            case PREFIX_OPERATOR -> prefix(op, emit(params.get(0)));
            case FUNCTION -> function(op.toLowerCase(Locale.ROOT), params);
            default -> throw new IllegalStateException(at + ": unexpected token " + token.getType() + " '" + op
                    + "' in '" + expr.text() + "'");
        };
    }

    private static Code infix(String op, Code a, Code b) {
        return switch (op) {
            case "+" -> call("kevo_add", op, a, b);
            case "-" -> call("kevo_sub", op, a, b);
            case "*" -> call("kevo_mul", op, a, b);
            case "/" -> call("kevo_div", op, a, b);
            case "%" -> call("kevo_mod", op, a, b);
            case "<", "<=", ">", ">=", "==", "!=" -> {
                numbers(op, a, b);
                yield new Code("(" + a.text() + " " + op + " " + b.text() + ")", Type.BOOL);
            }
            case "&&", "||" -> {
                conditions(op, a, b);
                yield new Code((op.equals("&&") ? "kevo_and(" : "kevo_or(") + a.text() + ", " + b.text() + ")",
                        Type.BOOL);
            }
            default -> throw new IllegalStateException("unexpected operator '" + op + "'");
        };
    }

    private static Code prefix(String op, Code a) {
        return switch (op) {
            case "-" -> {
                numbers(op, a);
                yield new Code("kevo_neg(" + CONTEXT + ", " + a.text() + ")", Type.INT);
            }
            case "+" -> {
                numbers(op, a);
                yield a;
            }
            case "!" -> {
                conditions(op, a);
                yield new Code("(!" + a.text() + ")", Type.BOOL);
            }
            default -> throw new IllegalStateException("unexpected prefix operator '" + op + "'");
        };
    }

    private Code function(String name, List<ASTNode> params) {
        List<Code> args = new ArrayList<>();
        for (ASTNode p : params) {
            args.add(emit(p));
        }
        return switch (name) {
            case "cdiv" -> call("kevo_cdiv", "cdiv", args.get(0), args.get(1));
            case "min", "max" -> {
                // kevo's min and max take a condition as 1 or 0 (EvalEx's number value of a boolean).
                String folded = number(args.get(0));
                for (int i = 1; i < args.size(); i++) {
                    folded = "kevo_" + name + "(" + folded + ", " + number(args.get(i)) + ")";
                }
                yield new Code(folded, Type.INT);
            }
            default -> throw new IllegalStateException("unexpected function '" + name + "'");
        };
    }

    private static String number(Code code) {
        return code.type() == Type.BOOL ? "((int64_t)" + code.text() + ")" : code.text();
    }

    private static Code call(String function, String op, Code a, Code b) {
        numbers(op, a, b);
        return new Code(function + "(" + CONTEXT + ", " + a.text() + ", " + b.text() + ")", Type.INT);
    }

    private static void numbers(String op, Code... operands) {
        for (Code operand : operands) {
            if (operand.type() != Type.INT) {
                throw new AlwaysFails("'" + op + "' needs numbers, got a condition");
            }
        }
    }

    private static void conditions(String op, Code... operands) {
        for (Code operand : operands) {
            if (operand.type() != Type.BOOL) {
                throw new AlwaysFails("'" + op + "' needs conditions, got a number");
            }
        }
    }

    /** A part without variables, evaluated once here by kevo itself. */
    private Code constant(ASTNode node) {
        Object value;
        try {
            value = expr.evaluate(node, constants);
        } catch (RuntimeException e) {
            throw new AlwaysFails(e.getMessage() == null ? e.toString() : e.getMessage());
        }
        if (value instanceof Boolean b) {
            return new Code(b ? "true" : "false", Type.BOOL);
        }
        BigDecimal number = (BigDecimal) value;
        long whole;
        try {
            whole = number.stripTrailingZeros().toBigIntegerExact().longValueExact();
        } catch (ArithmeticException e) {
            throw KevoException.input(at + ": '" + expr.text() + "' holds the constant " + number.toPlainString()
                    + ", which kevo export cannot carry: the exported plan computes in 64-bit integers");
        }
        return new Code(whole == Long.MIN_VALUE ? "(-INT64_C(9223372036854775807) - 1)"
                : whole < 0 ? "(-INT64_C(" + -whole + "))" : "INT64_C(" + whole + ")", Type.INT);
    }

    private static boolean usesVariables(ASTNode node) {
        if (node.getToken().getType() == Token.TokenType.VARIABLE_OR_CONSTANT
                && (Expr.VARIABLES.contains(node.getToken().getValue())
                || Expr.ATTENTION_VARIABLES.contains(node.getToken().getValue()))) {
            return true;
        }
        for (ASTNode p : node.getParameters()) {
            if (usesVariables(p)) {
                return true;
            }
        }
        return false;
    }
}
