package dev.kevo.cli;

import dev.kevo.ExitCode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kevo.KevoException;
import dev.kevo.data.BaselineChoice;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Defaults;
import dev.kevo.data.Profile;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.EvalRecord;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Verdict;
import dev.kevo.eval.BaselineResolver;
import dev.kevo.eval.Evaluator;
import dev.kevo.report.EvalTable;
import dev.kevo.store.RecordSeal;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.store.SourceHash;
import dev.kevo.task.ContractException;
import dev.kevo.task.op.Task;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import dev.kevo.worker.ComputeSanitizer;
import dev.kevo.worker.Message;
import dev.kevo.worker.NsightCompute;
import dev.kevo.worker.Supervisor;
import dev.kevo.worker.Tools;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "eval", mixinStandardHelpOptions = true,
        header = "Judge kernel files on a GPU: correct on every shape, how fast.",
        description = {"Checks kernel files against a float64 reference on every shape of a suite, and on a few "
                + "shapes drawn afresh for each evaluation, and times them on the suite side by side with the "
                + "baseline and a plain copy, in a supervised worker process: a kernel that hangs, crashes or cheats "
                + "gets a verdict, never takes kevo down.",
                "Prints a table per file (time, spread, speedup, fraction of the memory floor, registers) and the "
                        + "score: the geometric mean speedup over the baseline (cuDNN's softmax where it loads)."})
public final class EvalCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Kernel files (.cu with a /*@kevo header).")
    List<Path> files;

    @Mixin
    Inputs inputs;

    @Option(names = "--baseline", paramLabel = "cudnn|auto|NAME|FILE",
            description = "What speedups are over: cudnn (cuDNN's softmax; $KEVO_CUDNN or the system's libcudnn.so.9, "
                    + "then .8; an error without it), auto (cuDNN where it loads, else block_two_pass), or a kernel "
                    + "file (evaluator/baselines/NAME.cu or a path). Default: from the config.")
    String baseline;

    @Option(names = "--device", paramLabel = "N", defaultValue = "0", description = "GPU ordinal. Default: 0.")
    int device;

    @Option(names = "--json", paramLabel = "OUT", converter = PathArguments.Output.class,
            description = "Also write the full record as JSON.")
    Path json;

    // "seed" alone names the starting kernels; this is the seed of the inputs. --seed stays as the older spelling.
    @Option(names = {"--input-seed", "--seed"}, paramLabel = "S",
            description = "Input seed; replays the exact inputs of an earlier run. Default: random, recorded. "
                    + "(--seed is the older name.)")
    Long requestedInputSeed;

    @Option(names = "--timing-secret", paramLabel = "T",
            description = "Replays which timed launches were checked and where their inputs were salted, as a "
                    + "result's timingSecret recorded them (with --input-seed, the whole evaluation). Default: drawn "
                    + "afresh for every file, so that nothing a kernel can read predicts it.")
    Long timingSecret;

    @Option(names = "--cold", description = "Also show a first launch's time, what a naive harness would report.")
    boolean cold;

    @Option(names = "--sanitize",
            description = "Then run each file whose launches all returned under compute-sanitizer (memcheck, "
                    + "racecheck, synccheck, initcheck) on the smallest suite shape of each plan: a finding is the "
                    + "verdict (memory-error, data-race). The outcome is recorded beside the file as "
                    + "NAME.sanitized.json, which kevo export asks for. $" + ComputeSanitizer.VARIABLE
                    + " names the binary; default: the PATH, $CUDA_HOME/bin, /usr/local/cuda/bin. "
                    + "(sanitize: every in the config does this for every file that passes.)")
    boolean sanitize;

    @Option(names = "--profile", description = "Then profile each file that passed on its "
            + "shapes furthest from the memory floor under Nsight Compute (ncu, clocks as they are): DRAM throughput, "
            + "occupancy and the top stall reasons per launch, as a model agent with profile_shapes is shown them. $"
            + NsightCompute.VARIABLE + " names the binary; default: the PATH, $CUDA_HOME/bin, /usr/local/cuda/bin.")
    boolean profile;

    @Option(names = "--at-scale", description = "Also check, untimed, what champion confirmation checks: a shape past "
            + "2^31 elements (beyond_suite.at_scale, about 17 GB of GPU memory more) and held-out shapes drawn "
            + "afresh. A record of a pass lets kevo export accept shapes up to that size.")
    boolean atScale;

    @Spec
    CommandSpec spec;

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "every file passed",
                ExitCode.REJECTED, "a file was rejected (the verdict says why)",
                ExitCode.USAGE, "bad usage, config, suite or kernel file",
                ExitCode.NO_GPU, "no GPU, driver or NVRTC, no cuDNN for --baseline cudnn (or a broken one named by "
                        + "KEVO_CUDNN), no compute-sanitizer for --sanitize or 'sanitize: every', or no ncu for "
                        + "--profile");
    }

    @Override
    public ExitCode call() {
        long started = System.nanoTime();
        OptionChecks.atLeast(spec, "--device", device, 0);
        Inputs.existing(files);
        try (Supervisor.Spawned early = Workers.spawnEarly(Optional.of(device), inputs.nvrtcPath())) {
            return evaluate(started, early);
        }
    }

    private ExitCode evaluate(long started, Supervisor.Spawned early) {
        EvalSettings settings = inputs.settings();
        if (baseline != null) {
            settings = settings.withBaseline(baseline);
        }
        Suite suite = inputs.suite(settings);
        BaselineResolver.Resolved resolved = new BaselineResolver(inputs.home()::baseline, System.getenv())
                .resolve(settings.baseline(), baseline != null ? "--baseline" : inputs.configName(),
                        Task.of(settings));
        BaselineChoice choice = resolved.choice();
        long inputSeed = requestedInputSeed != null ? requestedInputSeed : new SecureRandom().nextLong();
        PrintWriter out = spec.commandLine().getOut();

        Optional<ComputeSanitizer> sanitizer = Workers.sanitizer(settings, sanitize);
        List<CandidateResult> results = new ArrayList<>();
        Optional<NsightCompute> profiler = profile ? Optional.of(NsightCompute.locate(System.getenv()))
                : Optional.empty();
        try (Supervisor supervisor = Workers.supervisor(early, Optional.of(device), inputs.nvrtcPath(), suite,
                resolved, settings, Tools.sanitizing(sanitizer).withProfiler(profiler))) {
            Message.Ready ready = supervisor.ready();
            // Said once a worker is ready: on a host without a GPU the one line is that.
            resolved.note().ifPresent(note -> spec.commandLine().getErr().println("kevo: " + note));
            DeviceInfo gpu = ready.device();
            out.printf("kevo %s on %s (%s, %d SMs, driver %s), NVRTC %s; op %s, suite %s (%d shapes), dtype %s, "
                            + "baseline %s, input seed %d%n", Version.current(), gpu.name(), gpu.arch(), gpu.sms(),
                    gpu.driverVersion(), ready.nvrtcVersion(), settings.op(), suite.name(), suite.shapes().size(),
                    settings.dtype().id(), choice.describe(), inputSeed);
            sanitizer.ifPresent(cs -> out.println("sanitizer: compute-sanitizer " + cs.version()));
            out.flush();
            for (Path file : files) {
                CandidateResult result = evaluateOne(supervisor, file, inputSeed);
                // --sanitize looks into a rejection too (a finding names its cause); sanitize: every, as in a
                // campaign, only at what passed.
                if (sanitizer.isPresent() && (sanitize ? result.verdict().launchesReturned() : result.passed())) {
                    result = sanitizeOne(supervisor, file, result, inputSeed);
                }
                results.add(result);
                EvalTable.print(result, choice.label(), Task.of(settings).tolerance(settings).relativeL2(), cold, out);
                if (profile && result.passed()) {
                    List<Shape> worst = Profile.furthestFromFloor(result.shapes(), Defaults.PROFILE_SHAPES).stream()
                            .map(Shape::parse).toList();
                    Profile found = supervisor.profile(ContractParser.read(file), inputSeed, worst);
                    out.printf("profile (%s, %.1f s):%n", found.tool(), found.seconds());
                    found.lines().forEach(l -> out.println("  " + l));
                }
                out.flush();
            }
            Supervisor.Restarts restarts = supervisor.restarts();
            if (restarts.count() > 0) {
                out.printf("%nworker restarted %d time(s) after a fault or timeout: %s ms%n", restarts.count(),
                        restarts.millis().stream().map(ms -> String.format("%.0f", ms)).toList());
            }
            if (json != null) {
                writeJson(EvalRecord.builder().kevoVersion(Version.current())
                        .date(OffsetDateTime.now(ZoneOffset.UTC).toString())
                        .command(spec.commandLine().getParseResult().originalArgs()).device(gpu)
                        .nvrtcVersion(ready.nvrtcVersion()).nvrtcLibrary(ready.nvrtcLibrary()).suite(suite.name())
                        .shapes(suite.shapes().stream().map(Shape::toString).toList()).baseline(choice.name())
                        .settings(settings).inputSeed(inputSeed).wallSeconds((System.nanoTime() - started) / 1e9)
                        .workerStartupMs(ready.startupMs()).results(results).baselineChoice(choice).build());
            }
        }
        long rejected = results.stream().filter(r -> !r.passed()).count();
        if (files.size() > 1) {
            out.printf("%n%d of %d files passed%n", files.size() - rejected, files.size());
        }
        return rejected == 0 ? ExitCode.OK : ExitCode.REJECTED;
    }

    private CandidateResult evaluateOne(Supervisor supervisor, Path file, long inputSeed) {
        try {
            KernelFile kernel = ContractParser.read(file);
            return supervisor.evaluate(kernel, inputSeed, Evaluator.Run.plain()
                            .withTimingSecret(timingSecret).withCold(cold).withAtScale(atScale)).toBuilder()
                    .sourceHash(SourceHash.of(kernel.source())).build();
        } catch (ContractException e) {
            return contractError(file, e, inputSeed);
        } catch (StackOverflowError | OutOfMemoryError e) {
            // one file that exhausts kevo's stack or heap is that file's rejection; the other files are judged
            return contractError(file, ContractException.exhausted(file.toString(), e), inputSeed);
        }
    }

    private static CandidateResult contractError(Path file, ContractException e, long inputSeed) {
        return CandidateResult.rejected(file.getFileName().toString(), file.toString(), null, Verdict.CONTRACT_ERROR,
                e.getMessage(), inputSeed);
    }

    /**
     * The file under compute-sanitizer, its finding the verdict, and the outcome recorded beside it for kevo export
     * (a folder kevo cannot write to costs the record, with a line saying so, not the judgement).
     */
    private CandidateResult sanitizeOne(Supervisor supervisor, Path path, CandidateResult judged, long inputSeed) {
        KernelFile file = ContractParser.read(path);
        Sanitized found = RecordSeal.local().seal(supervisor.sanitize(file, judged)
                .withSourceHash(SourceHash.of(file.source())));
        try {
            SanitizedRecords.write(path, found);
        } catch (IOException e) {
            spec.commandLine().getErr().println("kevo: " + SanitizedRecords.beside(path)
                    + ": cannot record the sanitizer's outcome (" + e.getMessage() + ")");
        }
        return judged.withSanitized(found);
    }

    private void writeJson(EvalRecord record) {
        try {
            Path parent = json.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), record);
        } catch (IOException e) {
            throw KevoException.input(json + ": cannot write (" + e.getMessage() + ")");
        }
    }
}
