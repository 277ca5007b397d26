package dev.kevo.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

@Command(name = "kevo", mixinStandardHelpOptions = true, versionProvider = Version.class,
        description = "Evolves fast CUDA softmax kernels and measures them honestly.",
        subcommands = {EvolveCommand.class, EvalCommand.class, CheckCommand.class, LineageCommand.class,
                ShowCommand.class, ReevalCommand.class, ReportCommand.class, WorkerCommand.class, ExportCommand.class},
        footer = {"", "Start with: kevo check seeds/*.cu (no GPU needed), then kevo evolve (one GPU, about 10 minutes).",
            "Each command's --help says what it does, its options and its exit codes.", "",
            PathArguments.RULE})
public final class KevoCommand implements Runnable {

    @Option(names = "--verbose", scope = ScopeType.INHERIT, description = "Print stack traces with errors.")
    boolean verbose;

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
