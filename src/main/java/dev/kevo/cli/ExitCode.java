package dev.kevo.cli;

import dev.kevo.KevoException;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Every exit status kevo's commands return, with what it means: the one list that the code returns and the help
 * prints, so that the two cannot drift apart. Scripts and CI branch on these numbers; they never change meaning.
 */
public enum ExitCode {
    OK(0, "success"),
    REJECTED(1, "a kernel was rejected, or a re-evaluated score moved"),
    USAGE(2, "bad input: usage, config, suite, kernel file or campaign folder"),
    NO_GPU(3, "no GPU, driver, NVRTC or cuDNN where one is needed"),
    NOT_COMPILED(4, "every check passed except compiling, skipped: no NVRTC found"),
    INTERNAL(70, "internal error: a bug in kevo (--verbose for the stack trace)");

    private final int code;
    private final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    public int code() {
        return code;
    }

    public String meaning() {
        return meaning;
    }

    /** The status for an error the user can act on. */
    static ExitCode of(KevoException.Kind kind) {
        return switch (kind) {
            case INPUT -> USAGE;
            case ENVIRONMENT -> NO_GPU;
        };
    }

    /**
     * Help's exit code list: each code a command can return, with what it means for that command, in the enum's
     * order; any command can fail with {@link #INTERNAL}.
     */
    static Map<String, String> helpList(Map<ExitCode, String> meanings) {
        Map<ExitCode, String> all = new EnumMap<>(meanings);
        all.putIfAbsent(INTERNAL, INTERNAL.meaning);
        Map<String, String> list = new LinkedHashMap<>();
        all.forEach((exit, meaning) -> list.put(String.format("%3d", exit.code), meaning));
        return list;
    }

    /** Help's list of every code with its general meaning, for the top-level command. */
    static Map<String, String> helpList() {
        Map<ExitCode, String> all = new EnumMap<>(ExitCode.class);
        for (ExitCode exit : values()) {
            all.put(exit, exit.meaning);
        }
        return helpList(all);
    }

    /** A command that says which exit codes it returns, and what each means for it. */
    interface Documented {
        Map<ExitCode, String> exitCodes();
    }
}
