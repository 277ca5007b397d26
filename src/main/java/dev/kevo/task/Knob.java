package dev.kevo.task;

import java.util.List;

/**
 * One tunable parameter a kernel file declares in its header: kevo defines it as a macro when it compiles the
 * file, and plan expressions may use it (integer knobs only).
 *
 * @param name an upper-case C identifier, the macro's name
 * @param values the values it may take, in the order the header gives them (integers sorted ascending)
 * @param value its current value, one of {@code values}
 * @param integer true when every value is an integer; otherwise the values are identifiers (an enum-like choice)
 */
public record Knob(String name, List<String> values, String value, boolean integer) {

    public Knob {
        values = List.copyOf(values);
    }

    /** Where the current value sits in {@link #values()}. */
    public int index() {
        return values.indexOf(value);
    }

    public boolean allows(String candidate) {
        return values.contains(candidate);
    }

    public Knob with(String newValue) {
        return new Knob(name, values, newValue, integer);
    }

    /** The current value as a number; only for integer knobs. */
    public long number() {
        return Long.parseLong(value);
    }
}
