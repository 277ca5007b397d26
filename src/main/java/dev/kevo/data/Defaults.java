package dev.kevo.data;

/**
 * Every default of what is configured: what a key left out of a campaign YAML, config/eval.yaml or a model block
 * takes. The shipped YAML and the docs' tables show these same values, and tests fail when either drifts from
 * them. (Code rather than the shipped YAML as the base: a config built in code, a test, or a kevo run where no
 * installation file is found gets the same defaults, and editing an installed file cannot silently change what
 * every other config means.)
 */
public final class Defaults {

    /** The agent that needs no model: knob tuning and genomes, in-process. */
    public static final String BUILTIN_AGENT = "builtin";

    private Defaults() {
    }
}
