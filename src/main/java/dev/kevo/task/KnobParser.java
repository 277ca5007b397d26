package dev.kevo.task;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads a header's {@code "knobs"} and {@code "knob_rule"}, and checks that the plan's expressions name only
 * declared integer knobs. Every error is an {@link IllegalArgumentException} whose message names the knob; the
 * contract parser adds the file and line.
 *
 * <pre>
 * "knobs": {
 *   "BLOCK": { "values": [128, 256, 512, 1024], "value": 256 },
 *   "SPLIT": { "range": [1, 16], "value": 4 },
 *   "MODE":  { "values": ["ONLINE", "TWO_PASS"], "value": "ONLINE" }
 * },
 * "knob_rule": "BLOCK * SPLIT <= 4096"
 * </pre>
 */
public final class KnobParser {

    /** A kernel with more knobs than this is hard to tune and harder to read. */
    public static final int MAX_KNOBS = 16;
    /** Values a range may expand to. */
    public static final int MAX_VALUES = 1024;
    /** The keys a knob's object may have. */
    public static final Set<String> KNOB_KEYS = Set.of("values", "range", "value", "about");
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    /** kevo.h's own names start so (KEVO_X, KEVO_INF, ...): a knob may not. */
    public static final String RESERVED_PREFIX = "KEVO_";
    /** kevo.h's macros: a knob of that name would redefine them under the kernel. */
    public static final Set<String> PRELUDE_MACROS = Set.of("INFINITY", "NAN", "FLT_MAX", "FLT_MIN", "FLT_EPSILON");
    /** Names expressions already give a meaning to; EvalEx compares names without case. */
    public static final Set<String> EXPRESSION_NAMES = Set.of("ROWS", "COLS", "SMS", "TRUE", "FALSE", "MIN", "MAX",
            "CDIV");

    private KnobParser() {
    }

    /**
     * @param knobsNode the header's {@code knobs}, or null
     * @param ruleNode the header's {@code knob_rule}, or null
     * @param source the whole file, to check that it does not define a knob's macro itself
     */
    public static Knobs parse(JsonNode knobsNode, JsonNode ruleNode, String source) {
        if (knobsNode == null) {
            if (ruleNode != null) {
                throw new IllegalArgumentException("'knob_rule' without 'knobs'");
            }
            return Knobs.NONE;
        }
        if (!knobsNode.isObject()) {
            throw new IllegalArgumentException("'knobs' must be an object: name to { \"values\": [...], \"value\": v }");
        }
        if (knobsNode.size() > MAX_KNOBS) {
            throw new IllegalArgumentException("'knobs': " + knobsNode.size() + " knobs, at most " + MAX_KNOBS);
        }
        List<Knob> knobs = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = knobsNode.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            knobs.add(knob(entry.getKey(), entry.getValue(), source));
        }
        Optional<Expr> rule = Optional.empty();
        if (ruleNode != null) {
            rule = Optional.of(rule(ruleNode, knobs));
        }
        Knobs parsed = new Knobs(knobs, rule);
        if (!parsed.ruleHolds()) {
            throw new IllegalArgumentException("knob_rule '" + rule.orElseThrow().text()
                    + "' does not hold for the current values (" + parsed.describe() + ")");
        }
        return parsed;
    }

    private static Knob knob(String name, JsonNode node, String source) {
        String at = "knobs." + name;
        if (!Expr.KNOB_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(at + ": a knob's name is an upper-case C identifier (like BLOCK or "
                    + "ROWS_PER_WARP)");
        }
        if (name.startsWith(RESERVED_PREFIX) || PRELUDE_MACROS.contains(name)) {
            throw new IllegalArgumentException(at + ": '" + name + "' is kevo.h's; choose another name");
        }
        if (EXPRESSION_NAMES.contains(name)) {
            throw new IllegalArgumentException(at + ": '" + name + "' reads as the expression name '"
                    + name.toLowerCase(Locale.ROOT) + "'; choose another name");
        }
        if (!node.isObject()) {
            throw new IllegalArgumentException(at + " must be an object with 'values' (or 'range') and 'value'");
        }
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!KNOB_KEYS.contains(key)) {
                throw new IllegalArgumentException(at + ": unknown key '" + key + "' (allowed: about, range, value, "
                        + "values)");
            }
        }
        if (node.has("values") == node.has("range")) {
            throw new IllegalArgumentException(at + ": give either 'values' (a list) or 'range' ([low, high] or "
                    + "[low, high, step])");
        }
        List<String> values = node.has("values") ? values(node.get("values"), at) : range(node.get("range"), at);
        boolean integer = values.stream().allMatch(v -> v.matches("-?\\d+"));
        if (!integer && values.stream().anyMatch(v -> v.matches("-?\\d+"))) {
            throw new IllegalArgumentException(at + ".values: all integers or all names, not a mix");
        }
        if (integer) {
            values = values.stream().map(Long::parseLong).sorted().map(String::valueOf).toList();
        }
        JsonNode valueNode = node.get("value");
        if (valueNode == null) {
            throw new IllegalArgumentException(at + ": no 'value' (the current value, one of the allowed values)");
        }
        String value = scalar(valueNode, at + ".value");
        if (!values.contains(value)) {
            throw new IllegalArgumentException(at + ": current value " + value + " is not among the allowed values "
                    + abbreviate(values));
        }
        // [ \t], not \s: \s crosses line breaks, and at every line start of a file of blank lines it would scan
        // the rest of the file (quadratic time)
        if (Pattern.compile("(?m)^[ \\t]*#[ \\t]*define[ \\t]+" + name + "\\b").matcher(source).find()
                && !Pattern.compile("(?m)^[ \\t]*#[ \\t]*ifndef[ \\t]+" + name + "\\b").matcher(source).find()) {
            throw new IllegalArgumentException(at + ": the source #defines " + name + " itself; kevo defines it from "
                    + "the header (a fallback inside #ifndef " + name + " is fine)");
        }
        return new Knob(name, values, value, integer);
    }

    private static List<String> values(JsonNode node, String at) {
        if (!node.isArray() || node.isEmpty()) {
            throw new IllegalArgumentException(at + ".values must be a non-empty list of integers or names");
        }
        if (node.size() > MAX_VALUES) {
            throw new IllegalArgumentException(at + ".values: " + node.size() + " values, at most " + MAX_VALUES);
        }
        Set<String> values = new LinkedHashSet<>();
        for (int i = 0; i < node.size(); i++) {
            String value = scalar(node.get(i), at + ".values[" + i + "]");
            if (!values.add(value)) {
                throw new IllegalArgumentException(at + ".values: " + value + " is listed twice");
            }
        }
        return List.copyOf(values);
    }

    private static List<String> range(JsonNode node, String at) {
        boolean integers = node.isArray();
        for (int i = 0; integers && i < node.size(); i++) {
            integers = node.get(i).isIntegralNumber() && node.get(i).canConvertToInt();
        }
        if (!integers || node.size() < 2 || node.size() > 3) {
            throw new IllegalArgumentException(at + ".range must be [low, high] or [low, high, step], integers");
        }
        long low = node.get(0).asLong();
        long high = node.get(1).asLong();
        long step = node.size() == 3 ? node.get(2).asLong() : 1;
        if (step <= 0 || high < low) {
            throw new IllegalArgumentException(at + ".range: needs low <= high and a positive step");
        }
        if ((high - low) / step + 1 > MAX_VALUES) {
            throw new IllegalArgumentException(at + ".range: " + ((high - low) / step + 1) + " values, at most "
                    + MAX_VALUES);
        }
        List<String> values = new ArrayList<>();
        for (long v = low; v <= high; v += step) {
            values.add(Long.toString(v));
        }
        return values;
    }

    /** An integer (within a C int) or a C identifier, as text. */
    private static String scalar(JsonNode node, String at) {
        if (node.isIntegralNumber() && node.canConvertToInt()) {
            return Integer.toString(node.asInt());
        }
        if (node.isTextual() && IDENTIFIER.matcher(node.asText()).matches()) {
            return node.asText();
        }
        throw new IllegalArgumentException(at + ": " + node + " is neither a 32-bit integer nor a C identifier");
    }

    private static Expr rule(JsonNode node, List<Knob> knobs) {
        if (!node.isTextual()) {
            throw new IllegalArgumentException("knob_rule must be a condition string, e.g. \"BLOCK * VEC <= 4096\"");
        }
        Set<String> integers = new LinkedHashSet<>();
        knobs.stream().filter(Knob::integer).forEach(k -> integers.add(k.name()));
        Expr rule;
        try {
            rule = Expr.parse(node.asText(), integers);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("knob_rule: " + choiceHint(e.getMessage(), knobs));
        }
        for (String variable : rule.namesUsed()) {
            if (Expr.VARIABLES.contains(variable)) {
                throw new IllegalArgumentException("knob_rule '" + rule.text() + "' uses '" + variable
                        + "': the rule is over knobs only (plans choose by shape)");
            }
        }
        return rule;
    }

    /**
     * Checks every expression of a parsed file against its knobs: each name must be a declared integer knob.
     *
     * @throws IllegalArgumentException naming the expression's place and the knob
     */
    public static void checkExpressions(KernelFile file) {
        check(file.workspace(), "workspace", file.knobs());
        for (int p = 0; p < file.plans().size(); p++) {
            KernelFile.Plan plan = file.plans().get(p);
            check(plan.when(), "plan " + (p + 1) + " 'when'", file.knobs());
            for (int l = 0; l < plan.launches().size(); l++) {
                KernelFile.Launch launch = plan.launches().get(l);
                String at = "plan " + (p + 1) + " launch " + (l + 1);
                check(launch.grid(), at + " 'grid'", file.knobs());
                check(launch.block(), at + " 'block'", file.knobs());
                check(launch.smem(), at + " 'smem'", file.knobs());
                for (int a = 0; a < launch.args().size(); a++) {
                    if (launch.args().get(a) instanceof KernelFile.Arg.Int value) {
                        check(value.value(), at + " arg " + (a + 1), file.knobs());
                    }
                }
            }
        }
    }

    private static void check(Expr expr, String at, Knobs knobs) {
        for (String name : expr.knobsUsed()) {
            Optional<Knob> knob = knobs.get(name);
            if (knob.isEmpty()) {
                throw new IllegalArgumentException(at + ": unknown knob '" + name + "' in '" + expr.text() + "' ("
                        + (knobs.isEmpty() ? "the header declares no knobs" : "declared: "
                        + String.join(", ", knobs.names())) + ")");
            }
            if (!knob.get().integer()) {
                throw new IllegalArgumentException(at + ": knob '" + name + "' is a choice of names; expressions may "
                        + "use integer knobs only");
            }
        }
    }

    private static String choiceHint(String message, List<Knob> knobs) {
        for (Knob k : knobs) {
            if (!k.integer() && message.contains("'" + k.name() + "'")) {
                return message + "; knob '" + k.name() + "' is a choice of names, the rule may use integer knobs only";
            }
        }
        return message;
    }

    private static String abbreviate(List<String> values) {
        return values.size() <= 12 ? values.toString()
                : "[" + values.getFirst() + ", " + values.get(1) + ", ..., " + values.getLast() + "]";
    }
}
