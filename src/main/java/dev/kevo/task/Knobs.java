package dev.kevo.task;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A kernel file's knobs and the rule that rules out combinations of their values. Empty for a file that
 * declares none.
 *
 * @param knobs in header order
 * @param rule a condition over the integer knobs that every chosen combination must satisfy
 */
public record Knobs(List<Knob> knobs, Optional<Expr> rule) {

    public static final Knobs NONE = new Knobs(List.of(), Optional.empty());

    public Knobs {
        knobs = List.copyOf(knobs);
    }

    public boolean isEmpty() {
        return knobs.isEmpty();
    }

    public Optional<Knob> get(String name) {
        return knobs.stream().filter(k -> k.name().equals(name)).findFirst();
    }

    public List<String> names() {
        return knobs.stream().map(Knob::name).toList();
    }

    /** Name to current value, in header order. */
    public Map<String, String> current() {
        Map<String, String> values = new LinkedHashMap<>();
        knobs.forEach(k -> values.put(k.name(), k.value()));
        return values;
    }

    /** The integer knobs' current values, as plan expressions see them. */
    public Map<String, Long> numbers() {
        Map<String, Long> values = new LinkedHashMap<>();
        knobs.stream().filter(Knob::integer).forEach(k -> values.put(k.name(), k.number()));
        return values;
    }

    /**
     * The macros kevo defines when it compiles the file: each knob as its value, and for a choice of names also
     * {@code NAME_VALUE} as 1, so that the preprocessor can test a choice ({@code #if defined(MODE_ONLINE)}).
     */
    public Map<String, String> macros() {
        Map<String, String> macros = new LinkedHashMap<>();
        for (Knob k : knobs) {
            macros.put(k.name(), k.value());
            if (!k.integer()) {
                macros.put(k.name() + "_" + k.value(), "1");
            }
        }
        return macros;
    }

    /** The same knobs with some current values replaced (names not declared are an error). */
    public Knobs with(Map<String, String> values) {
        values.keySet().forEach(name -> get(name).orElseThrow(() -> new IllegalArgumentException(
                "no knob '" + name + "'")));
        return new Knobs(knobs.stream().map(k -> values.containsKey(k.name()) ? k.with(values.get(k.name())) : k)
                .toList(), rule);
    }

    /** True when every value is allowed and the rule holds for them. */
    public boolean allowed() {
        return knobs.stream().allMatch(k -> k.allows(k.value())) && ruleHolds();
    }

    public boolean ruleHolds() {
        return rule.map(r -> r.evalBoolean(new Expr.Env(0, 0, 0, Map.of()).withKnobs(numbers()))).orElse(true);
    }

    /** {@code BLOCK=256, VEC=4}: for summaries and prompts. */
    public String describe() {
        return knobs.stream().map(k -> k.name() + "=" + k.value()).collect(Collectors.joining(", "));
    }

    /** {@code BLOCK 256->512, VEC 4->2}: the knobs whose values differ from {@code before}'s. */
    public String movesFrom(Knobs before) {
        return knobs.stream().filter(k -> before.get(k.name()).filter(b -> !b.value().equals(k.value())).isPresent())
                .map(k -> k.name() + " " + before.get(k.name()).orElseThrow().value() + "->" + k.value())
                .collect(Collectors.joining(", "));
    }
}
