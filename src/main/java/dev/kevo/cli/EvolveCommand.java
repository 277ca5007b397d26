package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.config.KevoHome;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.Defaults;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.eval.BaselineResolver;
import dev.kevo.evolve.Campaign;
import dev.kevo.evolve.CampaignStart;
import dev.kevo.evolve.CampaignWiring;
import dev.kevo.report.CampaignProgress;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.Suite;
import dev.kevo.worker.ComputeSanitizer;
import dev.kevo.worker.Message;
import dev.kevo.worker.SrunLauncher;
import dev.kevo.worker.WorkerPool;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "evolve", mixinStandardHelpOptions = true,
        header = "Run (or --resume) an evolution campaign: mutations/<name>/.",
        description = {"Runs an evolution campaign: starts from the seeds, asks the agents for variants of good "
                + "kernels, judges each in a supervised GPU worker, keeps the best per island, and records every "
                + "step in mutations/<campaign>/.",
                "With no options it runs config/default.yaml (the built-in agent, about 10 minutes on one GPU). "
                        + "A campaign killed at any point continues with --resume."})
public final class EvolveCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

    @Option(names = "--config", paramLabel = "FILE", description = "Campaign config. Default: config/default.yaml.")
    Path config;

    @Option(names = "--resume", paramLabel = "DIR", description = "Continue the campaign in DIR where it stopped.")
    Path resume;

    @Option(names = {"--devices", "--device"}, paramLabel = "LIST",
            description = "GPUs to use, one worker each: 0, 0,1 or all (overrides the config's device/devices). "
                    + "Each candidate is timed against the baseline on the device that judged it; with several, "
                    + "the best few are judged again on the first before the champion is named.")
    String devices;

    @Option(names = "--nvrtc", paramLabel = "LIB", description = "NVRTC library to use.")
    Path nvrtc;

    @Option(names = "--compilers", paramLabel = "N",
            description = "Compiling workers per GPU, which compile candidates ahead while the GPUs judge (at most "
                    + "the host's cores less one; 0 for none). Default: ${DEFAULT-VALUE}. A file that takes longer to "
                    + "compile than a GPU takes to judge one keeps the GPU waiting with too few: masked_softmax's "
                    + "renders compile about five times as long as softmax's.")
    int compilers = Defaults.COMPILERS_PER_GPU;

    @Mixin
    WorkerPlacement placement = new WorkerPlacement();

    static final class Output {
        @Option(names = "--quiet", description = "No progress, only the final summary.")
        boolean quiet;

        @Option(names = "--jsonl", description = "Progress as JSON lines on stdout, one per evaluation.")
        boolean jsonl;

        @Option(names = "--lines", description = "Progress as one plain line per evaluation (default when not a terminal).")
        boolean lines;
    }

    @ArgGroup(exclusive = true)
    Output output = new Output();

    @Spec
    CommandSpec spec;

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "the campaign finished",
                ExitCode.USAGE, "bad config, seeds or campaign folder, a " + ComputeSanitizer.VARIABLE + " that names "
                        + "no file, or 'sanitize: every' with --workers slurm",
                ExitCode.NO_GPU, "no GPU, driver or NVRTC; no cuDNN where the baseline is cuDNN (or a broken one named "
                        + "by KEVO_CUDNN); no compute-sanitizer for 'sanitize: every' (without one, a campaign that "
                        + "sanitizes its champion runs, says so, and its champion cannot be exported until kevo eval "
                        + "--sanitize records it)");
    }

    @Override
    public ExitCode call() {
        OptionChecks.atLeast(spec, "--compilers", compilers, 0);
        if (devices != null && !CampaignConfig.DEVICE_SELECTION.matcher(devices).matches()) {
            throw OptionChecks.invalid(spec, "--devices", "'all' or GPU ordinals separated by commas", devices);
        }
        Optional<List<SrunLauncher>> slurm = placement.slurm(System.getenv(), Optional.empty());
        if (slurm.isPresent() && devices != null) {
            throw KevoException.input("--devices names GPUs of this host; with --workers slurm the allocation's GPUs "
                    + "are used (slurm:N for N of them)");
        }
        KevoHome home = KevoHome.locate(System.getenv(), Path.of("").toAbsolutePath());
        PrintWriter err = spec.commandLine().getErr();
        // The config, its inputs and the agents are checked here, the devices and their workers below, and only
        // then is a new campaign's folder made.
        Path source = resume != null ? resume.resolve(CampaignStore.CONFIG)
                : config != null ? config : home.config("default");
        CampaignStart start = resume != null
                ? CampaignStart.resume(resume, home, c -> Agents.pool(c, source, home))
                : CampaignStart.fresh(source, home, Version.current(), c -> Agents.pool(c, source, home),
                        System.getenv(), note -> err.println("kevo: " + note));
        FrozenCampaign frozen = start.frozen();
        Suite suite = start.suite();
        BaselineResolver.Resolved baseline = start.baseline(home, System.getenv());
        if (start.resumed()) {
            baseline.note().ifPresent(note -> err.println("kevo: " + note));
        }
        String selection = devices != null ? devices : frozen.config().deviceSelection();
        CampaignWiring wiring = CampaignWiring.of(start, baseline, slurm.isPresent(), System.getenv());
        try (WorkerPool workers = slurm.isPresent()
                ? Workers.slurmPool(slurm.get(), Optional.ofNullable(nvrtc), suite, baseline, frozen.settings(),
                        compilers)
                : Workers.pool(selection, Optional.ofNullable(nvrtc), suite, baseline, frozen.settings(),
                        wiring.tools(), compilers)) {
            CampaignStore store = wiring.ready(note -> err.println("kevo: " + note));
            CampaignConfig campaign = store.frozen().config();
            PrintWriter out = spec.commandLine().getOut();
            out.println((start.resumed() ? "resuming " : "campaign ") + store.dir());
            out.printf("on %s, op %s, dtype %s, suite %s (%d shapes), baseline %s, %d seeds, %d islands x %d%n",
                    describe(workers.ready()), store.frozen().settings().op(), store.frozen().settings().dtype().id(),
                    suite.name(), suite.shapes().size(), baseline.choice().describe(),
                    start.seeds().size(), campaign.islands(), campaign.population());
            out.flush();
            Campaign run = wiring.campaign(store, workers, new CampaignProgress(mode(), out, campaign.stop()),
                    System::currentTimeMillis);
            summary(out, store, run.run());
        }
        return ExitCode.OK;
    }

    /** "NVIDIA H100 80GB HBM3 (132 SMs)", or "2 GPUs: 0 NVIDIA H200 (132 SMs), 1 ...", node first on Slurm. */
    static String describe(List<Message.Ready> ready) {
        List<String> each = ready.stream().map(r -> r.judgedOn() + " (" + r.device().sms() + " SMs)").toList();
        return each.size() == 1 && ready.getFirst().node() == null
                ? each.getFirst().substring(each.getFirst().indexOf(' ') + 1)
                : each.size() + " GPUs: " + String.join(", ", each);
    }

    private CampaignProgress.Mode mode() {
        if (output.quiet) {
            return CampaignProgress.Mode.QUIET;
        }
        if (output.jsonl) {
            return CampaignProgress.Mode.JSONL;
        }
        return output.lines || System.console() == null ? CampaignProgress.Mode.LINES : CampaignProgress.Mode.LIVE;
    }

    private static void summary(PrintWriter out, CampaignStore store, CampaignState state) {
        Optional<MutantRecord> champion = Optional.ofNullable(state.bestId()).flatMap(store::mutant);
        out.printf(Locale.ROOT, "%d generations, %d evaluations, %.1f min%n", state.generation(), state.evaluations(),
                state.elapsedMillis() / 60_000.0);
        champion.ifPresent(c -> out.printf(Locale.ROOT, "champion %s: score %.3fx over %s, memory floor %.2f -> %s%n",
                c.id(), c.fitness(), store.frozen().baseline().label(), c.result().score().floorFraction(),
                store.dir().resolve("champion.cu")));
        out.println("inspect: kevo show " + store.dir() + "   kevo lineage " + store.dir());
    }
}
