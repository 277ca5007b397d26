package dev.kevo.cli;

import dev.kevo.cuda.CompileCache;
import dev.kevo.data.Ablation;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.SanitizeWhen;
import dev.kevo.eval.BaselineResolver;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Suite;
import dev.kevo.worker.ComputeSanitizer;
import dev.kevo.worker.Launcher;
import dev.kevo.worker.SlurmAllocation;
import dev.kevo.worker.SrunLauncher;
import dev.kevo.worker.Supervisor;
import dev.kevo.worker.Tools;
import dev.kevo.worker.WorkerPool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/** Starts supervised workers from the same runtime and class path as this process. */
final class Workers {
    private Workers() {
    }

    /** A supervisor for a GPU worker on {@code device}, or a check-only one when the device is empty. */
    static Supervisor supervisor(Optional<Integer> device, Optional<Path> nvrtc, Suite suite, KernelFile baseline,
                                 EvalSettings settings, String arch, int sms) {
        return new Supervisor(Supervisor.Setup.builder(command(device, nvrtc), suite, settings).baseline(baseline)
                .target(arch, sms).build());
    }

    /**
     * A supervisor for a GPU worker judging against a resolved baseline (a kernel file or cuDNN), which can also run
     * files under the {@code tools} there are.
     */
    static Supervisor supervisor(Optional<Integer> device, Optional<Path> nvrtc, Suite suite,
                                 BaselineResolver.Resolved baseline, EvalSettings settings, Tools tools) {
        return new Supervisor(setup(device, nvrtc, suite, baseline, settings, tools));
    }

    /** As {@link #supervisor}, adopting a worker already started with {@link #spawnEarly}. */
    static Supervisor supervisor(Supervisor.Spawned early, Optional<Integer> device, Optional<Path> nvrtc, Suite suite,
                                 BaselineResolver.Resolved baseline, EvalSettings settings, Tools tools) {
        return new Supervisor(setup(device, nvrtc, suite, baseline, settings, tools), early);
    }

    private static Supervisor.Setup setup(Optional<Integer> device, Optional<Path> nvrtc, Suite suite,
                                          BaselineResolver.Resolved baseline, EvalSettings settings, Tools tools) {
        return Supervisor.Setup.builder(command(device, nvrtc), suite, settings).baseline(baseline.file())
                .baselineChoice(baseline.choice()).sanitizer(tools.sanitizer().orElse(null))
                .profiler(tools.profiler().orElse(null)).build();
    }

    /**
     * The compute-sanitizer {@code kevo eval} and {@code kevo reeval} need: one when it was asked for ({@code kevo eval
     * --sanitize}) or when every candidate is ({@code sanitize: every}); looked for before any worker starts, so that a
     * host without one fails at once, not after the work. (A campaign, for which it is optional, looks in
     * {@code evolve.CampaignWiring}.)
     */
    static Optional<ComputeSanitizer> sanitizer(EvalSettings settings, boolean asked) {
        return asked || settings.sanitize() == SanitizeWhen.EVERY
                ? Optional.of(ComputeSanitizer.locate(System.getenv())) : Optional.empty();
    }

    /** Starts a GPU worker before its inputs are read: its JVM and CUDA start meanwhile. */
    static Supervisor.Spawned spawnEarly(Optional<Integer> device, Optional<Path> nvrtc) {
        return Supervisor.spawn(command(device, nvrtc));
    }

    private static List<String> command(Optional<Integer> device, Optional<Path> nvrtc) {
        // C1 only and a serial collector: a worker's Java side waits on the GPU, and starts matter more. For the
        // same reason its classes come from a shared archive that the first worker writes into kevo's cache.
        // JVM messages go to stderr: stdout carries the frames. The archive's own notes (classes it skips) are noise.
        List<String> command = new ArrayList<>(List.of(javaBinary(), "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xlog:disable", "-Xlog:all=warning:stderr", "-Xlog:cds*=off:stderr"));
        CompileCache.fromEnvironment(System.getenv()).dir().filter(Workers::writable).ifPresent(cache ->
                command.addAll(List.of("-XX:+AutoCreateSharedArchive",
                        "-XX:SharedArchiveFile=" + cache.resolve("worker-" + Version.current() + ".jsa"))));
        // bench/check_costs.sh sets it on this JVM (KEVO_JAVA_OPTS); the evaluator that reads it runs in the worker.
        Optional.ofNullable(System.getProperty(Ablation.PROPERTY)).ifPresent(a -> command.add("-D" + Ablation.PROPERTY + "=" + a));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName(), "worker"));
        device.ifPresent(d -> command.addAll(List.of("--device", Integer.toString(d))));
        nvrtc.ifPresent(p -> command.addAll(List.of("--nvrtc", p.toAbsolutePath().toString())));
        return command;
    }

    /**
     * One GPU worker per selected device: {@code 0}, {@code 0,1} or {@code all}, and {@code compilersPerGpu}
     * check-only workers per device that compile candidates ahead while the GPUs are busy. For {@code all} the first
     * worker says how many devices the host has, since this process never loads CUDA.
     */
    static WorkerPool pool(String selection, Optional<Path> nvrtc, Suite suite, BaselineResolver.Resolved baseline,
                           EvalSettings settings, Tools tools, int compilersPerGpu) {
        IntFunction<Supervisor> supervisor = d -> supervisor(Optional.of(d), nvrtc, suite, baseline, settings,
                tools);
        BiFunction<String, Integer, Supervisor> compiler = (arch, sms) -> supervisor(Optional.empty(), nvrtc, suite,
                null, settings, arch, sms);
        if (!selection.equals("all")) {
            List<Integer> devices = Arrays.stream(selection.split(",")).map(String::trim).map(Integer::valueOf)
                    .distinct().toList();
            return WorkerPool.start(devices, supervisor, compiler, compilersPerGpu);
        }
        // Device 0's worker, once started, says how many there are and joins the pool as it is.
        Supervisor first = supervisor.apply(0);
        int count = first.ready().devices();
        return WorkerPool.start(IntStream.range(0, Math.max(1, count)).boxed().toList(),
                d -> d == 0 ? first : supervisor.apply(d), compiler, compilersPerGpu);
    }

    /**
     * One GPU worker per srun step of the allocation this process runs in (see {@link SlurmAllocation}), each
     * judging on its step's one GPU, which it sees as device 0; with {@code compilersPerGpu} above 0, that many
     * check-only workers per step on this host compile candidates ahead, as for local workers. The worker command is
     * this process's own JVM and class path, so kevo must sit where every node of the allocation sees it at the same
     * path.
     */
    static WorkerPool slurmPool(List<SrunLauncher> launchers, Optional<Path> nvrtc, Suite suite,
                                BaselineResolver.Resolved baseline, EvalSettings settings, int compilersPerGpu) {
        List<String> worker = command(Optional.of(0), nvrtc);
        List<Supervisor> steps = launchers.stream()
                .map(l -> new Supervisor(Supervisor.Setup.builder(worker, suite, settings).baseline(baseline.file())
                        .baselineChoice(baseline.choice()).launcher(l).build()))
                .toList();
        BiFunction<String, Integer, Supervisor> compiler = (arch, sms) -> supervisor(Optional.empty(), nvrtc, suite,
                null, settings, arch, sms);
        return WorkerPool.start(steps, compiler, System.err::println, compilersPerGpu);
    }

    private static boolean writable(Path dir) {
        try {
            Files.createDirectories(dir);
            return Files.isWritable(dir);
        } catch (IOException e) {
            return false;
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
