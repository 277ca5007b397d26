package dev.kevo;


/**
 * Every exit status kevo's commands and worker processes return, with what it means: the one list that the code
 * returns and the help prints, so that the two cannot drift apart. Scripts and CI branch on these numbers; they never change meaning.
 */
public enum ExitCode {
    OK(0, "success"),
    REJECTED(1, "a kernel was rejected, or a re-evaluated score moved"),
    USAGE(2, "bad input: usage, config, suite, kernel file or campaign folder"),
    NO_GPU(3, "no GPU, driver, NVRTC, cuDNN or compute-sanitizer where one is needed"),
    NOT_COMPILED(4, "every check passed except compiling, skipped: no NVRTC found"),
    UNVERIFIED(5, "a sanitizer record kevo cannot verify on this host"),
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

    /** The status a worker process exits with: its code, or INTERNAL for one that is no kevo status. */
    public static ExitCode of(int code) {
        for (ExitCode exit : values()) {
            if (exit.code == code) {
                return exit;
            }
        }
        return INTERNAL;
    }
}
