package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.config.KevoHome;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import picocli.CommandLine;

/** Entry point: runs a subcommand and turns failures into one line on stderr and a distinct exit code. */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    public static int run(String... args) {
        return run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args);
    }

    public static int run(PrintWriter out, PrintWriter err, String... args) {
        return run(CommandLine.defaultFactory(), out, err, args);
    }

    /** As {@link #run(PrintWriter, PrintWriter, String...)}, with commands made by {@code factory}. */
    static int run(CommandLine.IFactory factory, PrintWriter out, PrintWriter err, String... args) {
        boolean verbose = Arrays.asList(args).contains("--verbose");
        CommandLine cli = new CommandLine(KevoCommand.class, factory).setOut(out).setErr(err);
        Path workingDirectory = Path.of("").toAbsolutePath();
        cli.registerConverter(Path.class, new PathArguments.Input(workingDirectory,
                KevoHome.locate(System.getenv(), workingDirectory)));
        cli.setExecutionStrategy(Main::execute);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> report(e, commandLine.getErr(), verbose));
        cli.setParameterExceptionHandler(Main::usageError);
        documentExitCodes(cli);
        int code = cli.execute(args);
        // Commands may print() without a newline; flush before the caller exits the JVM.
        out.flush();
        err.flush();
        return code;
    }

    /** Runs the command the line names; one that returns an {@link ExitCode} exits with its code. */
    private static int execute(CommandLine.ParseResult parsed) {
        int code = new CommandLine.RunLast().execute(parsed);
        return parsed.asCommandLineList().getLast().getExecutionResult() instanceof ExitCode exit ? exit.code() : code;
    }

    /** Each command's help lists its exit codes from {@link ExitCode}, the codes it returns. */
    private static void documentExitCodes(CommandLine cli) {
        cli.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n").exitCodeList(ExitCodeHelp.helpList());
        for (CommandLine sub : cli.getSubcommands().values()) {
            if (sub.getCommand() instanceof ExitCodeHelp.Documented documented) {
                sub.getCommandSpec().usageMessage().exitCodeListHeading("%nExit codes:%n")
                        .exitCodeList(ExitCodeHelp.helpList(documented.exitCodes()));
            }
        }
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
        return ExitCode.USAGE.code();
    }

    static int report(Throwable e, PrintWriter err, boolean verbose) {
        if (e instanceof KevoException k) {
            err.println("kevo: " + k.getMessage());
            if (verbose) {
                e.printStackTrace(err);
            }
            return k.kind().exitCode().code();
        }
        err.println("kevo: internal error: " + e + (verbose ? "" : " (run with --verbose for the stack trace)"));
        if (verbose) {
            e.printStackTrace(err);
        }
        return ExitCode.INTERNAL.code();
    }
}
