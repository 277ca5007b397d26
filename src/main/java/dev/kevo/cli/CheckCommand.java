package dev.kevo.cli;

import dev.kevo.KevoException;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Verdict;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Checks kernel files without running them: the /*@kevo header, every plan on every shape "
                + "of the suite, source rules, and an NVRTC compile bounded by limits.compile_s. Needs no GPU; "
                + "with one, also prints registers and spills.",
                "For writing kernels on a laptop, and for CI."},
        footer = {"", "Prints, per file, which plan each shape of the suite gets (plans counted from 1).",
            "Exit codes: 0 every file is fine, 1 a file has a problem (printed as file:line), 2 usage (an --arch "
                + "NVRTC does not know included), 3 no NVRTC."})
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
        if (sms != null && sms < 1) {
            throw new ParameterException(spec.commandLine(), "--sms must be at least 1 (got " + sms + ")");
        }
        if (arch != null && !arch.matches("sm_\\d+[a-z]?")) {
            throw new ParameterException(spec.commandLine(), "--arch '" + arch + "': expected sm_XX, e.g. sm_90");
        }
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
                    out.println(checkOne(supervisor, file, suite, multiprocessors, ready.nvrtcVersion()));
                } catch (KevoException e) {
                    failed++;
                    err.println(e.getMessage());
                }
            }
            return failed == 0 ? 0 : 1;
        }
    }

    private String checkOne(Supervisor supervisor, Path path, Suite suite, int sms, String nvrtcVersion) {
        KernelFile file = ContractParser.read(path);
        CandidateResult result = supervisor.evaluate(file, 0, false);
        if (!result.passed()) {
            // NVRTC refuses an architecture it does not know as a compile error; it is the option that is wrong
            if (arch != null && result.verdict() == Verdict.COMPILE_ERROR
                    && result.detail().contains("--gpu-architecture")) {
                throw new ParameterException(spec.commandLine(), "--arch " + arch + ": NVRTC " + nvrtcVersion
                        + " cannot compile for it");
            }
            throw KevoException.input(result.detail().startsWith(path.toString()) ? result.detail()
                    : path + ": " + result.verdict().id() + ": " + result.detail());
        }
        String kernels = result.kernels().isEmpty() ? String.join(", ", file.kernelNames())
                : result.kernels().stream().map(EvalTable::resources).collect(Collectors.joining(", "));
        String warnings = result.compileLog() == null ? "" : "\n" + result.compileLog().strip();
        return String.format("%s: ok; compiled in %.0f ms; kernels: %s%s%s", path, result.compileMs(), kernels,
                coverage(file, suite, sms), warnings);
    }

    /** Which plan each shape of the suite gets, one line per plan: {@code plan 2 of 3: 4096x4096 1x1000000}. */
    private static String coverage(KernelFile file, Suite suite, int sms) {
        Map<Integer, List<String>> shapesByPlan = new TreeMap<>();
        for (int p = 0; p < file.plans().size(); p++) {
            shapesByPlan.put(p, new ArrayList<>());
        }
        for (Shape shape : suite.shapes()) {
            shapesByPlan.get(PlanResolver.resolve(file, shape, sms).planIndex()).add(shape.toString());
        }
        StringBuilder out = new StringBuilder();
        shapesByPlan.forEach((plan, shapes) -> out.append(String.format("%n  plan %d of %d: %s", plan + 1,
                file.plans().size(), shapes.isEmpty() ? "no shape of suite " + suite.name()
                        : String.join(" ", shapes))));
        return out.toString();
    }
}
