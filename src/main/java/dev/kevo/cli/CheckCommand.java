package dev.kevo.cli;

import dev.kevo.KevoException;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.task.KernelFile;
import dev.kevo.task.ContractParser;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.task.Shape;
import dev.kevo.task.Suite;
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
                + "of the suite, and an NVRTC compile. Needs no GPU; with one, also prints registers and spills.",
                "For writing kernels on a laptop, and for CI."},
        footer = {"", "Exit codes: 0 every file is fine, 1 a file has a problem (printed as file:line), 2 usage, "
                + "3 no NVRTC."})
public final class CheckCommand implements Callable<Integer> {

    /** Hopper's multiprocessor count (H100 SXM), used for plan expressions when no GPU is present. */
    static final int DEFAULT_SMS = 132;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Kernel files to check.")
    List<Path> files;

    @Mixin
    Inputs inputs;

    @Option(names = "--arch", paramLabel = "sm_XX",
            description = "Target architecture. Default: the GPU's own if there is one, else sm_90.")
    String arch;

    @Option(names = "--sms", paramLabel = "N",
            description = "Multiprocessor count for plan expressions. Default: the GPU's, else " + DEFAULT_SMS + ".")
    Integer sms;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Inputs.existing(files);
        Suite suite = inputs.suite(inputs.settings());
        Nvrtc nvrtc = Nvrtc.load(inputs.nvrtcPath());
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Optional<Gpu> gpu = Gpu.count() > 0 ? Optional.of(Gpu.open(0)) : Optional.empty();
        try {
            String target = arch != null ? arch : gpu.map(g -> g.info().arch()).orElse("sm_90");
            int multiprocessors = sms != null ? sms : gpu.map(g -> g.info().sms()).orElse(DEFAULT_SMS);
            out.printf("NVRTC %s (%s), target %s, %d SMs, suite %s%s%n", nvrtc.version(), nvrtc.location(), target,
                    multiprocessors, suite.name(), gpu.isPresent() ? "" : "; no GPU: registers and spills not shown");
            int failed = 0;
            for (Path file : files) {
                try {
                    out.println(checkOne(file, suite, nvrtc, target, multiprocessors, gpu));
                } catch (KevoException e) {
                    failed++;
                    err.println(e.getMessage());
                }
            }
            return failed == 0 ? 0 : 1;
        } finally {
            gpu.ifPresent(Gpu::close);
        }
    }

    private static String checkOne(Path path, Suite suite, Nvrtc nvrtc, String target, int sms, Optional<Gpu> gpu) {
        KernelFile file = ContractParser.read(path);
        TreeSet<Integer> plansUsed = new TreeSet<>();
        for (Shape shape : suite.shapes()) {
            ResolvedPlan plan = PlanResolver.resolve(file, shape, sms);
            plansUsed.add(plan.planIndex() + 1);
        }
        Compilation compiled = nvrtc.compile(file.name(), file.source(), Prelude.headers(), target);
        for (String kernel : file.kernelNames()) {
            if (!compiled.definesKernel(kernel)) {
                throw KevoException.input(path + ": the plan launches '" + kernel
                        + "' but the file defines no extern \"C\" __global__ kernel of that name");
            }
        }
        String kernels = gpu.filter(g -> g.info().arch().equals(target))
                .map(g -> resources(g, compiled, file.kernelNames()))
                .orElse(String.join(", ", file.kernelNames()));
        String warnings = compiled.log().isBlank() ? "" : "\n" + compiled.log().strip();
        return String.format("%s: ok; %d plan(s), plans %s cover the %d shapes; compiled in %.0f ms; kernels: %s%s",
                path, file.plans().size(), plansUsed, suite.shapes().size(), compiled.time().toNanos() / 1e6,
                kernels, warnings);
    }

    private static String resources(Gpu gpu, Compilation compiled, List<String> names) {
        try (Module module = gpu.load(compiled)) {
            return names.stream().map(module::kernel).map(CheckCommand::describe).collect(Collectors.joining(", "));
        }
    }

    private static String describe(Kernel k) {
        return k.name() + " (" + k.registers() + " regs, " + k.localBytes() + " B local"
                + (k.localBytes() > 0 ? ": spills" : "") + ")";
    }
}
