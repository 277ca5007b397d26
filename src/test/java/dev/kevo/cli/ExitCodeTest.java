package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ExitCodeTest {

    @Test
    void everyCodeMeansOneThing() {
        assertEquals(ExitCode.values().length,
                Arrays.stream(ExitCode.values()).mapToInt(ExitCode::code).distinct().count());
    }

    /** A worker process exits with its kind's status; the supervisor's side must read it as the same code. */
    @Test
    void aWorkersExitStatusIsTheCodeKevoExitsWith() {
        for (KevoException.Kind kind : KevoException.Kind.values()) {
            assertEquals(kind.exitCode(), ExitCode.of(kind).code(), kind.name());
        }
    }

    @Test
    void theTopLevelHelpListsEveryCode() {
        String help = kevo("--help").out();
        for (ExitCode exit : ExitCode.values()) {
            assertTrue(help.contains(String.format("%3d   %s", exit.code(), exit.meaning())), exit + ": " + help);
        }
    }
}
