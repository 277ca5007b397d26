package dev.kevo.cli;

import dev.kevo.ExitCode;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** How help lists the exit codes: each command's own meanings of the codes it returns, from the one enum. */
final class ExitCodeHelp {
    private ExitCodeHelp() {
    }

    /**
     * Help's exit code list: each code a command can return, with what it means for that command, in the enum's
     * order; any command can fail with {@link ExitCode#INTERNAL}.
     */
    static Map<String, String> helpList(Map<ExitCode, String> meanings) {
        Map<ExitCode, String> all = new EnumMap<>(meanings);
        all.putIfAbsent(ExitCode.INTERNAL, ExitCode.INTERNAL.meaning());
        Map<String, String> list = new LinkedHashMap<>();
        all.forEach((exit, meaning) -> list.put(String.format("%3d", exit.code()), meaning));
        return list;
    }

    /** Help's list of every code with its general meaning, for the top-level command. */
    static Map<String, String> helpList() {
        Map<ExitCode, String> all = new EnumMap<>(ExitCode.class);
        for (ExitCode exit : ExitCode.values()) {
            all.put(exit, exit.meaning());
        }
        return helpList(all);
    }

    /** A command that says which exit codes it returns, and what each means for it. */
    interface Documented {
        Map<ExitCode, String> exitCodes();
    }
}
