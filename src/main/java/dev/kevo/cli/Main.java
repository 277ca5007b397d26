package dev.kevo.cli;

import dev.kevo.KevoException;
import java.io.PrintWriter;
import java.util.Arrays;
import picocli.CommandLine;

/** Entry point: runs a subcommand and turns failures into one line on stderr and a distinct exit code. */
public final class Main {

    /** Exit code for a failure that is kevo's own bug, not the user's input or machine. */
    public static final int INTERNAL_ERROR = 70;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        return run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    public static int run(PrintWriter out, PrintWriter err, String... args) {
        boolean verbose = Arrays.asList(args).contains("--verbose");
        CommandLine cli = new CommandLine(new KevoCommand()).setOut(out).setErr(err);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> report(e, commandLine.getErr(), verbose));
        int code = cli.execute(args);
        // Commands may print() without a newline; flush before the caller exits the JVM.
        out.flush();
        err.flush();
        return code;
    }

    static int report(Throwable e, PrintWriter err, boolean verbose) {
        if (e instanceof KevoException k) {
            err.println("kevo: " + k.getMessage());
            if (verbose) {
                e.printStackTrace(err);
            }
            return k.kind().exitCode();
        }
        err.println("kevo: internal error: " + e + (verbose ? "" : " (run with --verbose for the stack trace)"));
        if (verbose) {
            e.printStackTrace(err);
        }
        return INTERNAL_ERROR;
    }
}
