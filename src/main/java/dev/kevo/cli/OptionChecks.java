package dev.kevo.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Range checks for numeric options, made before any work starts: a value picocli parses but the command cannot use
 * is a usage error (one line, the help hint, exit 2), never a failure deep inside the command.
 */
final class OptionChecks {
    private OptionChecks() {
    }

    /** {@code value} (null: not given) is at least {@code least}. */
    static void atLeast(CommandSpec spec, String option, Number value, long least) {
        if (value != null && value.longValue() < least) {
            throw new ParameterException(spec.commandLine(), option + " must be at least " + least + " (got " + value
                    + ")");
        }
    }

    /** {@code value} is a finite number above zero. */
    static void positive(CommandSpec spec, String option, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new ParameterException(spec.commandLine(), option + " must be a number above 0 (got " + value + ")");
        }
    }

    /** A usage error about {@code option}: one line that says what it takes. */
    static ParameterException invalid(CommandSpec spec, String option, String expected, String value) {
        return new ParameterException(spec.commandLine(), option + ": " + expected + ", not '" + value + "'");
    }
}
