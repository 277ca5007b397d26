package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ExitCodeTest {

    @Test
    void everyCodeMeansOneThing() {
        assertEquals(ExitCode.values().length,
                Arrays.stream(ExitCode.values()).mapToInt(ExitCode::code).distinct().count());
    }

    /** A worker process's exit status reads back as the status kevo exits with; anything else is internal. */
    @Test
    void aWorkersExitStatusReadsBackAsTheSameCode() {
        for (ExitCode exit : ExitCode.values()) {
            assertEquals(exit, ExitCode.of(exit.code()));
        }
        assertEquals(ExitCode.INTERNAL, ExitCode.of(137), "a killed worker");
        assertEquals(ExitCode.USAGE, KevoException.Kind.INPUT.exitCode());
        assertEquals(ExitCode.NO_GPU, KevoException.Kind.ENVIRONMENT.exitCode());
    }

    @Test
    void theTopLevelHelpListsEveryCode() {
        String help = kevo("--help").out();
        for (ExitCode exit : ExitCode.values()) {
            assertTrue(help.contains(String.format("%3d   %s", exit.code(), exit.meaning())), exit + ": " + help);
        }
    }
}
