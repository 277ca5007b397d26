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
        cli.setParameterExceptionHandler(Main::usageError);
        int code = cli.execute(args);
        // Commands may print() without a newline; flush before the caller exits the JVM.
        out.flush();
        err.flush();
        return code;
    }

    /**
     * A usage error is one line and a pointer to the help, not the whole usage block: the line says what is wrong,
     * and on a small terminal the block would scroll it away.
     */
    private static int usageError(CommandLine.ParameterException e, String[] args) {
        CommandLine command = e.getCommandLine();
        PrintWriter err = command.getErr();
        err.println("kevo: " + e.getMessage());
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println("see '" + command.getCommandSpec().qualifiedName() + " --help'");
        return command.getCommandSpec().exitCodeOnInvalidInput();
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
