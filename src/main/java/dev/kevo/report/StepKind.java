package dev.kevo.report;

import dev.kevo.data.MutantRecord;

/**
 * What kind of step made a mutant, for people reading a lineage: the built-in agent tuning a file's knobs, the
 * built-in agent's genome, a language model, a repair, a seed. The operator says how within a kind.
 */
public enum StepKind {
    SEED("seed"), TUNING("tuning"), GENOME("genome"), MODEL("model"), REPAIR("repair"), FAILED("failed"),
    OTHER("other");

    private final String label;

    StepKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static StepKind of(MutantRecord m) {
        String operator = m.operator() == null ? "" : m.operator();
        if (operator.equals("seed")) {
            return SEED;
        }
        if (operator.equals("failed")) {
            return FAILED;
        }
        if (operator.equals("repair")) {
            return REPAIR;
        }
        if (operator.equals("tune") || operator.startsWith("tune-")) {
            return TUNING;
        }
        if (m.genome() != null) {
            return GENOME;
        }
        return m.model() != null ? MODEL : OTHER;
    }
}
