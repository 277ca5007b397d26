package dev.kevo;

/**
 * An error a user can act on: one line saying what went wrong and where, and the exit code it maps to.
 * Anything else that escapes is a bug in kevo and is reported as such.
 */
public class KevoException extends RuntimeException {

    /** What kind of failure, which decides the process exit code. */
    public enum Kind {
        /** Bad command line, config, suite or kernel file: the user must fix an input. */
        INPUT(ExitCode.USAGE),
        /** No GPU, no driver, no NVRTC, device out of memory: the machine cannot run this. */
        ENVIRONMENT(ExitCode.NO_GPU);

        private final ExitCode exitCode;

        Kind(ExitCode exitCode) {
            this.exitCode = exitCode;
        }

        public ExitCode exitCode() {
            return exitCode;
        }
    }

    private final Kind kind;

    public KevoException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public KevoException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public static KevoException input(String message) {
        return new KevoException(Kind.INPUT, message);
    }

    public static KevoException environment(String message) {
        return new KevoException(Kind.ENVIRONMENT, message);
    }

    public Kind kind() {
        return kind;
    }
}
