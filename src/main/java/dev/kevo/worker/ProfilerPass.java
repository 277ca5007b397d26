package dev.kevo.worker;

import dev.kevo.KevoException;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Profile;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.ContractException;
import dev.kevo.task.KernelFile;
import dev.kevo.task.PlanResolver;
import dev.kevo.task.ResolvedPlan;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A kernel file's launches profiled by Nsight Compute: a worker of its own on this host, on the device of {@code
 * setup}'s workers, runs the file's plan once on each of the given shapes ({@code --profile-run}), ncu profiling
 * only the file's kernels, and the CSV it writes becomes a {@link Profile}. A profile that cannot be had (the worker
 * failed, ncu wrote no rows) says why in its detail and holds no launches: it is evidence for a model, never a
 * judgement.
 */
final class ProfilerPass {
    static final String WORKER_FLAG = "--profile-run";
    /** How long the profiled worker may take to exit once told to: ncu writes its report then. */
    private static final Duration EXIT_GRACE = Duration.ofSeconds(60);

    private final Supervisor.Setup setup;
    private final String device;
    private final int sms;

    ProfilerPass(Supervisor.Setup setup, String device, int sms) {
        this.setup = setup;
        this.device = device;
        this.sms = sms;
    }

    Profile run(KernelFile file, long inputSeed, List<Shape> shapes) {
        long start = System.nanoTime();
        List<String> launchShapes = new ArrayList<>();
        Set<String> kernels = new LinkedHashSet<>();
        try {
            for (Shape shape : shapes) {
                ResolvedPlan plan = PlanResolver.resolve(file, shape, sms);
                for (ResolvedPlan.Launch launch : plan.launches()) {
                    launchShapes.add(shape.toString());
                    kernels.add(launch.kernel());
                }
            }
        } catch (ContractException e) {
            return failed("its plans: " + e.getMessage(), start);
        }
        Path log;
        try {
            log = Files.createTempFile("kevo-ncu-", ".csv");
        } catch (IOException e) {
            throw KevoException.environment("cannot make a file for ncu's report: " + e.getMessage());
        }
        ToolLauncher launcher = new ToolLauncher(w -> setup.profiler().command(log, List.copyOf(kernels), w));
        List<String> command = new ArrayList<>(setup.workerCommand());
        command.add(WORKER_FLAG);
        Supervisor worker = new Supervisor(Supervisor.Setup.builder(command,
                new Suite("profile", "", shapes), setup.settings()).launcher(launcher).build());
        CandidateResult ran;
        try {
            ran = worker.evaluate(file, inputSeed, Evaluator.Run.plain());
        } catch (KevoException e) {
            return failed("the worker under ncu: " + e.getMessage(), start);
        } finally {
            worker.close(EXIT_GRACE);
        }
        String text;
        try {
            text = Files.readString(log);
        } catch (IOException e) {
            text = "";
        }
        List<Profile.Launch> launches = ran.passed() ? NcuReport.launches(text, launchShapes) : List.of();
        if (launches.isEmpty()) {
            // Kept for a person to read: what ncu said is the only clue to why there is no profile.
            String exit = launcher.exitCode().isPresent() ? "; ncu exited " + launcher.exitCode().getAsInt() : "";
            return failed((ran.passed() ? "ncu reported no launch of " + String.join(", ", kernels)
                    : "under ncu, " + ran.verdict().id() + (ran.detail() == null ? "" : ": " + ran.detail()))
                    + exit + "; its report: " + log, start);
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // A report left in the temporary folder harms nothing.
        }
        return new Profile(launches, seconds(start), setup.profiler().version(), device, now(), null);
    }

    private Profile failed(String why, long start) {
        return new Profile(List.of(), seconds(start), setup.profiler().version(), device, now(), "no profile: " + why);
    }

    private static double seconds(long start) {
        return (System.nanoTime() - start) / 1e9;
    }

    private static String now() {
        return OffsetDateTime.now(ZoneOffset.UTC).toString();
    }
}
