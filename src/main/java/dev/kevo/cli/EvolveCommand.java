package dev.kevo.cli;

import dev.kevo.KevoException;
import dev.kevo.agent.TaskContext;
import dev.kevo.config.KevoHome;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.BaselineChoice;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.eval.BaselineResolver;
import dev.kevo.evolve.AgentPool;
import dev.kevo.evolve.Campaign;
import dev.kevo.evolve.Judge;
import dev.kevo.report.CampaignProgress;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Shape;
import dev.kevo.task.Suite;
import dev.kevo.worker.Message;
import dev.kevo.worker.SrunLauncher;
import dev.kevo.worker.WorkerPool;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "evolve", mixinStandardHelpOptions = true,
        description = {"Runs an evolution campaign: starts from the seeds, asks the agents for variants of good "
                + "kernels, judges each in a supervised GPU worker, keeps the best per island, and records every "
                + "step in mutations/<campaign>/.",
                "With no options it runs config/default.yaml (the built-in agent, about 10 minutes on one GPU). "
                        + "A campaign killed at any point continues with --resume."},
        footer = {"", "Exit codes: 0 finished, 2 bad config or input, 3 no GPU/driver/NVRTC."})
public final class EvolveCommand implements Callable<Integer> {

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

    /**
     * What a campaign starts or resumes from, read and checked before any folder is made: the frozen settings,
     * where the folder is (or will be), the baseline's source, the seeds and the agents (checked ready).
     * {@code existing} is the store of a resumed campaign, null for a new one.
     */
    private record Start(Path dir, FrozenCampaign frozen, String baselineSource, List<KernelFile> seeds,
                         AgentPool agents, CampaignStore existing) {
    }

    @Override
    public Integer call() {
        Optional<List<SrunLauncher>> slurm = placement.slurm(System.getenv(), Optional.empty());
        if (slurm.isPresent() && devices != null) {
            throw KevoException.input("--devices names GPUs of this host; with --workers slurm the allocation's GPUs "
                    + "are used (slurm:N for N of them)");
        }
        KevoHome home = KevoHome.locate(System.getenv(), Path.of("").toAbsolutePath());
        // Check first, then create: the config, its inputs and the agents are checked here, the devices and their
        // workers below, and only then is a new campaign's folder made, so one that cannot start leaves nothing.
        Start start = resume != null ? resumed(home) : fresh(home);
        FrozenCampaign frozen = start.frozen();
        Suite suite = Suite.of(frozen.suiteName(), frozen.shapes());
        BaselineResolver.Resolved baseline = new BaselineResolver(home::baseline, System.getenv())
                .recorded(frozen.baseline(), () -> ContractParser.parse(frozen.baselineName(),
                        start.dir().resolve(CampaignStore.BASELINE), start.baselineSource()));
        if (resume != null) {
            baseline.note().ifPresent(note -> spec.commandLine().getErr().println("kevo: " + note));
        }
        String selection = devices != null ? devices : frozen.config().deviceSelection();
        if (!CampaignConfig.DEVICE_SELECTION.matcher(selection).matches()) {
            throw KevoException.input("--devices: 'all' or GPU ordinals separated by commas, not '" + selection + "'");
        }
        try (WorkerPool workers = slurm.isPresent()
                ? Workers.slurmPool(slurm.get(), Optional.ofNullable(nvrtc), suite, baseline, frozen.settings(), true)
                : Workers.pool(selection, Optional.ofNullable(nvrtc), suite, baseline, frozen.settings())) {
            CampaignStore store = start.existing() != null ? start.existing()
                    : CampaignStore.create(start.dir(), frozen, start.baselineSource());
            CampaignConfig campaign = store.frozen().config();
            List<KernelFile> seeds = start.seeds();
            PrintWriter out = spec.commandLine().getOut();
            out.println((resume != null ? "resuming " : "campaign ") + store.dir());
            DeviceInfo first = workers.ready().getFirst().device();
            out.printf("on %s, suite %s (%d shapes), baseline %s, %d seeds, %d islands x %d%n",
                    describe(workers.ready()), suite.name(), suite.shapes().size(), baseline.choice().describe(),
                    seeds.size(),
                    campaign.islands(), campaign.population());
            out.flush();
            CampaignProgress progress = new CampaignProgress(mode(), out, campaign.stop());
            Campaign run = new Campaign(campaign, store, evaluations(workers), start.agents(), seeds,
                    new TaskContext(first, suite.name(), suite.shapes(), baseline.choice().label()), progress,
                    System::currentTimeMillis);
            CampaignState state = run.run();
            summary(out, store, state);
        }
        return 0;
    }

    /** A campaign to continue: its folder exists, and says everything but where the seeds are. */
    private Start resumed(KevoHome home) {
        CampaignStore store = CampaignStore.open(resume);
        FrozenCampaign frozen = store.frozen();
        Path original = home.root().resolve(frozen.config().seeds());
        List<KernelFile> seeds = Files.isDirectory(original) ? readSeeds(original) : savedSeeds(store);
        return new Start(store.dir(), frozen, store.baselineSource(), seeds, Agents.pool(frozen.config(),
                store.dir().resolve(CampaignStore.CONFIG), home), store);
    }

    /** A new campaign, frozen as its folder will hold it; the folder is named but not made. */
    private Start fresh(KevoHome home) {
        Path file = config != null ? config : home.config("default");
        CampaignConfig campaign = CampaignConfig.load(file);
        // A model without its key, or unreachable, is an error before any folder is made or GPU used.
        AgentPool agents = Agents.pool(campaign, file, home);
        EvalSettings settings = EvalSettings.load(home.root().resolve(campaign.evalConfig()))
                .withSuite(campaign.suite()).withBaseline(campaign.baseline());
        Suite suite = SuiteFile.load(home.suite(settings.suite()));
        // Resolved once, before the folder is made: the record says which baseline (and cuDNN version) it was.
        BaselineResolver.Resolved resolved = new BaselineResolver(home::baseline, System.getenv())
                .resolve(settings.baseline(), "campaign config");
        resolved.note().ifPresent(note -> spec.commandLine().getErr().println("kevo: " + note));
        List<KernelFile> seeds = readSeeds(home.root().resolve(campaign.seeds()));
        Path dir = home.root().resolve(campaign.output()).resolve(campaign.name() + "-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        FrozenCampaign frozen = FrozenCampaign.of(Version.current(), OffsetDateTime.now(ZoneOffset.UTC).toString(),
                campaign, settings, suite.name(), suite.shapes().stream().map(Shape::toString).toList(),
                resolved.choice());
        return new Start(dir, frozen, resolved.file() != null ? resolved.file().source() : builtIn(resolved.choice()),
                seeds, agents, null);
    }

    /** baseline.cu of a campaign whose baseline is cuDNN: no kernel, a note for whoever opens the folder. */
    private static String builtIn(BaselineChoice choice) {
        return "// This campaign's baseline is built into kevo, not a kernel file: " + choice.label()
                + "'s cudnnSoftmaxForward (CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL) from " + choice.library()
                + ".\n// campaign.yaml records it under baseline_choice.\n";
    }

    private static Judge evaluations(WorkerPool workers) {
        return new Judge() {
            @Override
            public CandidateResult evaluate(KernelFile file, long inputSeed) {
                return workers.evaluate(file, inputSeed);
            }

            @Override
            public boolean confirms() {
                return workers.size() > 1;
            }

            @Override
            public CandidateResult confirm(KernelFile file, long inputSeed) {
                return workers.confirm(file, inputSeed);
            }
        };
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
                c.id(), c.fitness(), store.frozen().baseline().label(), c.result().floorFraction(),
                store.dir().resolve("champion.cu")));
        out.println("inspect: kevo show " + store.dir() + "   kevo lineage " + store.dir());
    }

    static List<KernelFile> readSeeds(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw KevoException.input(dir + ": no seeds folder");
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<KernelFile> seeds = files.filter(p -> p.toString().endsWith(".cu")).sorted()
                    .map(ContractParser::read).toList();
            if (seeds.isEmpty()) {
                throw KevoException.input(dir + ": no .cu seeds");
            }
            return seeds;
        } catch (IOException e) {
            throw KevoException.input(dir + ": cannot list (" + e.getMessage() + ")");
        }
    }

    /** The seeds as the campaign saved them, so a copied folder resumes without the original seeds/. */
    private static List<KernelFile> savedSeeds(CampaignStore store) {
        List<KernelFile> seeds = new ArrayList<>();
        for (MutantRecord m : store.mutants()) {
            if (m.isSeed()) {
                seeds.add(ContractParser.parse(m.seedFileName(), store.sourcePath(m.id()),
                        store.source(m.id())));
            }
        }
        if (seeds.isEmpty()) {
            throw KevoException.input(store.dir() + ": the campaign was stopped before its seeds were saved; "
                    + "start it again");
        }
        return seeds;
    }
}
