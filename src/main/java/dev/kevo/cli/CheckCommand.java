package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.cuda.NvrtcLocator;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.eval.Preflight;
import dev.kevo.report.EvalTable;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import dev.kevo.task.op.Task;
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
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "check", mixinStandardHelpOptions = true,
        header = "Check kernel files without a GPU: header, plans, rules, compile.",
        description = {"Checks kernel files without running them: the /*@kevo header, every plan on every shape "
                + "of the suite, source rules, and an NVRTC compile bounded by limits.compile_s, then each kernel's "
                + "registers and local memory (spills): from the cubin, or from the driver where a GPU of the "
                + "target architecture is present. Needs no GPU.",
                "For writing kernels on a laptop, and for CI."},
        footer = {"", "Prints, per file, which plan each shape of the suite gets (plans counted from 1).",
            "Without NVRTC (none named, none found) it runs every other check and says compiling was skipped."})
public final class CheckCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

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

    /** The NVRTC library a check-only worker would load (see {@link NvrtcLocator#locate}); empty: none. */
    private final Function<Optional<Path>, Optional<String>> nvrtcLocator;

    public CheckCommand() {
        this(configured -> new NvrtcLocator(System.getenv()).locate(configured));
    }

    CheckCommand(Function<Optional<Path>, Optional<String>> nvrtcLocator) {
        this.nvrtcLocator = nvrtcLocator;
    }

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "every file passed every check",
                ExitCode.REJECTED, "a file has a problem (printed as file:line)",
                ExitCode.USAGE, "bad usage or input, an --arch NVRTC does not know, or an --nvrtc (or "
                        + "$KEVO_NVRTC) that does not load",
                ExitCode.NO_GPU, "the NVRTC found failed to start",
                ExitCode.NOT_COMPILED, "every check but compiling passed; no NVRTC was found to compile with");
    }

    @Override
    public ExitCode call() {
        OptionChecks.atLeast(spec, "--sms", sms, 1);
        if (arch != null && !arch.matches("sm_\\d+[a-z]?")) {
            throw new ParameterException(spec.commandLine(), "--arch '" + arch + "': expected sm_XX, e.g. sm_90");
        }
        Inputs.existing(files);
        EvalSettings settings = inputs.settings();
        Suite suite = inputs.suite(settings);
        // Only a library nobody named may be missing: one the user named is loaded, and an error if it cannot be.
        if (nvrtcLocator.apply(inputs.nvrtcPath()).isEmpty()) {
            return withoutCompiling(suite, Task.of(settings));
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (Supervisor supervisor = Workers.supervisor(Optional.empty(), inputs.nvrtcPath(), suite, null, settings,
                arch, sms == null ? 0 : sms)) {
            Message.Ready ready = supervisor.ready();
            String target = arch != null ? arch : ready.device() != null ? ready.device().arch() : WorkerLoop.DEFAULT_ARCH;
            int multiprocessors = sms != null ? sms : ready.device() != null ? ready.device().sms() : WorkerLoop.DEFAULT_SMS;
            out.printf("NVRTC %s (%s), target %s, %d SMs, suite %s%s%n", ready.nvrtcVersion(), ready.nvrtcLibrary(),
                    target, multiprocessors, suite.name(),
                    ready.device() == null ? "; no GPU: registers and spills as the cubin records them" : "");
            long failed = files.stream().filter(file -> !checked(file, out, err,
                    () -> checkOne(supervisor, file, suite, multiprocessors, ready.nvrtcVersion()))).count();
            return failed == 0 ? ExitCode.OK : ExitCode.REJECTED;
        }
    }

    /** Every check but the compile, in this process: without NVRTC there is nothing to bound in a worker. */
    private ExitCode withoutCompiling(Suite suite, Task task) {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        int multiprocessors = sms != null ? sms : WorkerLoop.DEFAULT_SMS;
        String target = arch != null ? arch : WorkerLoop.DEFAULT_ARCH;
        out.printf("target %s, %d SMs, suite %s; headers, source rules and plans only%n", target, multiprocessors,
                suite.name());
        long failed = files.stream().filter(path -> !checked(path, out, err, () -> {
            KernelFile file = ContractParser.read(path);
            Optional<CandidateResult> rejected = Preflight.rejectedBeforeCompiling(file, suite, task,
                    multiprocessors, target);
            if (rejected.isPresent()) {
                throw rejection(path, rejected.get());
            }
            return path + ": ok, not compiled; kernels: " + String.join(", ", file.kernelNames())
                    + coverage(file, suite, multiprocessors);
        })).count();
        err.println("kevo: compiling skipped: no NVRTC library found (" + NvrtcLocator.INSTALL_HINT + ")");
        return failed == 0 ? ExitCode.NOT_COMPILED : ExitCode.REJECTED;
    }

    /**
     * Checks one file: its line on {@code out}, or its problem in one line on {@code err}. A file that exhausts kevo's
     * stack or heap is that file's problem, never the end of the command: the other files are still checked.
     *
     * @return whether the file passed
     */
    private static boolean checked(Path path, PrintWriter out, PrintWriter err, Supplier<String> check) {
        try {
            out.println(check.get());
            return true;
        } catch (KevoException e) {
            err.println(e.getMessage());
        } catch (StackOverflowError | OutOfMemoryError e) {
            err.println(ContractException.exhausted(path.toString(), e).getMessage());
        }
        return false;
    }

    private String checkOne(Supervisor supervisor, Path path, Suite suite, int sms, String nvrtcVersion) {
        KernelFile file = ContractParser.read(path);
        CandidateResult result = supervisor.evaluate(file, 0, Evaluator.Run.plain());
        if (!result.passed()) {
            // NVRTC refuses an architecture it does not know as a compile error; it is the option that is wrong
            if (arch != null && result.verdict() == Verdict.COMPILE_ERROR
                    && result.detail().contains("--gpu-architecture")) {
                throw new ParameterException(spec.commandLine(), "--arch " + arch + ": NVRTC " + nvrtcVersion
                        + " cannot compile for it");
            }
            throw rejection(path, result);
        }
        String kernels = result.kernels().isEmpty() ? String.join(", ", file.kernelNames())
                : result.kernels().stream().map(EvalTable::resources).collect(Collectors.joining(", "));
        String warnings = result.compileLog() == null ? "" : "\n" + result.compileLog().strip();
        return String.format("%s: ok; compiled in %.0f ms; kernels: %s%s%s", path, result.compileMs(), kernels,
                coverage(file, suite, sms), warnings);
    }

    /** A rejected file as its one line: file:line where the detail has it, else the file and the verdict. */
    private static KevoException rejection(Path path, CandidateResult result) {
        return KevoException.input(result.detail().startsWith(path.toString()) ? result.detail()
                : path + ": " + result.verdict().id() + ": " + result.detail());
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
        List<Integer> unused = new ArrayList<>();
        shapesByPlan.forEach((plan, shapes) -> {
            if (shapes.isEmpty()) {
                unused.add(plan + 1);
            } else {
                out.append(String.format("%n  plan %d of %d: %s", plan + 1, file.plans().size(),
                        String.join(" ", shapes)));
            }
        });
        // One line for the plans no shape reaches: a masked_softmax render has fifty plans, most for other suites.
        if (!unused.isEmpty()) {
            out.append(String.format("%n  %s of %d: no shape of suite %s", (unused.size() == 1 ? "plan " : "plans ")
                    + runs(unused), file.plans().size(), suite.name()));
        }
        return out.toString();
    }

    /** Ascending numbers as runs: {@code 2, 3, 7-12}. */
    static String runs(List<Integer> ascending) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < ascending.size(); ) {
            int j = i;
            while (j + 1 < ascending.size() && ascending.get(j + 1) == ascending.get(j) + 1) {
                j++;
            }
            int first = ascending.get(i);
            int last = ascending.get(j);
            parts.add(last - first >= 2 ? first + "-" + last : last > first ? first + ", " + last : "" + first);
            i = j + 1;
        }
        return String.join(", ", parts);
    }
}
