package dev.kevo.cli;

import dev.kevo.KevoException;
import dev.kevo.result.CandidateResult;
import dev.kevo.eval.EvalSettings;
import dev.kevo.report.EvalTable;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.Shape;
import dev.kevo.task.Suite;
import dev.kevo.worker.Message;
import dev.kevo.worker.Supervisor;
import dev.kevo.worker.WorkerLoop;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Checks kernel files without running them: the /*@kevo header, every plan on every shape "
                + "of the suite, source rules, and an NVRTC compile bounded by limits.compile_s. Needs no GPU; "
                + "with one, also prints registers and spills.",
                "For writing kernels on a laptop, and for CI."},
        footer = {"", "Exit codes: 0 every file is fine, 1 a file has a problem (printed as file:line), 2 usage, "
                + "3 no NVRTC."})
public final class CheckCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Kernel files to check.")
    List<Path> files;

    @Mixin
    Inputs inputs;

    @Option(names = "--arch", paramLabel = "sm_XX",
            description = "Target architecture. Default: the GPU's own if there is one, else "
                    + WorkerLoop.DEFAULT_ARCH + ".")
    String arch;

    @Option(names = "--sms", paramLabel = "N",
            description = "Multiprocessor count for plan expressions. Default: the GPU's, else "
                    + WorkerLoop.DEFAULT_SMS + ".")
    Integer sms;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Inputs.existing(files);
        EvalSettings settings = inputs.settings();
        Suite suite = inputs.suite(settings);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Supervisor supervisor = Workers.supervisor(Optional.empty(), inputs.nvrtcPath(), suite, null, settings,
                arch, sms == null ? 0 : sms)) {
            Message.Ready ready = supervisor.ready();
            String target = arch != null ? arch : ready.device() != null ? ready.device().arch() : WorkerLoop.DEFAULT_ARCH;
            int multiprocessors = sms != null ? sms : ready.device() != null ? ready.device().sms() : WorkerLoop.DEFAULT_SMS;
            out.printf("NVRTC %s (%s), target %s, %d SMs, suite %s%s%n", ready.nvrtcVersion(), ready.nvrtcLibrary(),
                    target, multiprocessors, suite.name(),
                    ready.device() == null ? "; no GPU: registers and spills not shown" : "");
            int failed = 0;
            for (Path file : files) {
                try {
                    out.println(checkOne(supervisor, file, suite, multiprocessors));
                } catch (KevoException e) {
                    failed++;
                    err.println(e.getMessage());
                }
            }
            return failed == 0 ? 0 : 1;
        }
    }

    private static String checkOne(Supervisor supervisor, Path path, Suite suite, int sms) {
        KernelFile file = ContractParser.read(path);
        CandidateResult result = supervisor.evaluate(file, 0, false);
        if (!result.passed()) {
            throw KevoException.input(result.detail().startsWith(path.toString()) ? result.detail()
                    : path + ": " + result.verdict().id() + ": " + result.detail());
        }
        TreeSet<Integer> plansUsed = new TreeSet<>();
        for (Shape shape : suite.shapes()) {
            plansUsed.add(PlanResolver.resolve(file, shape, sms).planIndex() + 1);
        }
        String kernels = result.kernels().isEmpty() ? String.join(", ", file.kernelNames())
                : result.kernels().stream().map(EvalTable::resources).collect(Collectors.joining(", "));
        String warnings = result.compileLog() == null ? "" : "\n" + result.compileLog().strip();
        return String.format("%s: ok; %d plan(s), plans %s cover the %d shapes; compiled in %.0f ms; kernels: %s%s",
                path, file.plans().size(), plansUsed, suite.shapes().size(), result.compileMs(), kernels, warnings);
    }
}
