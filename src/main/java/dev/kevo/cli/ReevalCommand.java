package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.config.KevoHome;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Defaults;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Rejudged;
import dev.kevo.eval.BaselineResolver;
import dev.kevo.eval.Evaluator;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import dev.kevo.worker.ComputeSanitizer;
import dev.kevo.worker.SrunLauncher;
import dev.kevo.worker.Tools;
import dev.kevo.worker.WorkerPool;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "reeval", mixinStandardHelpOptions = true,
        header = "Judge saved mutants again; flag any whose score moved.",
        description = {"Re-evaluates saved mutants with the campaign's own settings, baseline and suite (or another "
                + "suite), side by side with what was recorded, and flags any whose score moved by more than the "
                + "noise bound: a saved mutant is evidence and must stay reproducible.",
                "Each is checked on the input cases kevo checks now as well as the campaign's own, and its new "
                        + "judgement is recorded beside it (ID.rejudged.json): show and report mark a champion that "
                        + "it rejected.",
                "Needs only the campaign folder (and a GPU)."},
        footer = {"", "Example: kevo reeval mutations/sample-h100 --top 3 (the sample campaign shipped with kevo)"})
public final class ReevalCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

    @Parameters(paramLabel = "CAMPAIGN", description = "A campaign folder.")
    Path campaign;

    @Option(names = "--top", paramLabel = "N", description = "The N best mutants. Default: 5 (unless --id).")
    Integer top;

    @Option(names = "--id", paramLabel = "ID", split = ",", description = "These mutants.")
    List<String> ids;

    @Option(names = "--device", paramLabel = "N", defaultValue = "0", description = "GPU ordinal. Default: 0.")
    int device;

    @Option(names = "--suite", paramLabel = "NAME|FILE", description = "Another suite. Default: the campaign's.")
    String suite;

    @Option(names = "--noise", paramLabel = "FRACTION", defaultValue = "" + MeasurementMethod.NOISE_BOUND,
            description = "Score change counted as noise. Default: ${DEFAULT-VALUE}, the evaluator's measured "
                    + "repeatability.")
    double noise;

    @Option(names = "--nvrtc", paramLabel = "LIB",
            description = "NVRTC library to use (else $KEVO_NVRTC, then the usual CUDA locations).")
    Path nvrtc;

    @Mixin
    WorkerPlacement placement = new WorkerPlacement();

    @Spec
    CommandSpec spec;

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "every mutant reproduced",
                ExitCode.REJECTED, "a score moved beyond the noise bound or a verdict changed",
                ExitCode.USAGE, "bad usage, not a campaign folder, or 'sanitize: every' with --workers slurm",
                ExitCode.NO_GPU, "no GPU, driver or NVRTC, no cuDNN for a campaign judged against it, or no "
                        + "compute-sanitizer for a campaign with 'sanitize: every'");
    }

    @Override
    public ExitCode call() {
        OptionChecks.atLeast(spec, "--top", top, 1);
        OptionChecks.atLeast(spec, "--device", device, 0);
        OptionChecks.positive(spec, "--noise", noise);
        CampaignStore store = CampaignStore.open(campaign);
        FrozenCampaign frozen = store.frozen();
        Suite judged = suite == null
                ? Suite.of(frozen.suiteName(), frozen.shapes())
                : SuiteFile.load(KevoHome.locate(System.getenv(), Path.of("").toAbsolutePath()).suite(suite));
        // Every case kevo checks now, besides the campaign's own: a case added since is how a newer check catches a
        // champion, which show and report then mark from the record saved below.
        EvalSettings settings = frozen.settings().toBuilder().suite(judged.name())
                .cases(Stream.concat(frozen.settings().cases().stream(), Defaults.CASES.stream()).distinct().toList())
                .build();
        // The campaign's own baseline: a kernel file as saved, or the cuDNN it recorded (never a fall-back).
        BaselineResolver.Resolved baseline = new BaselineResolver(
                KevoHome.locate(System.getenv(), Path.of("").toAbsolutePath())::baseline, System.getenv())
                .recorded(frozen.baseline(), () -> ContractParser.parse(frozen.baselineName(),
                        store.dir().resolve(CampaignStore.BASELINE), store.baselineSource()));
        baseline.note().ifPresent(note -> spec.commandLine().getErr().println("kevo: " + note));
        List<MutantRecord> chosen = ids != null
                ? ids.stream().map(i -> store.mutant(i).orElseThrow(() ->
                        KevoException.input(campaign + ": no mutant '" + i + "'"))).toList()
                : store.mutants().stream().filter(MutantRecord::passed).filter(m -> m.cachedFrom() == null)
                        .sorted((a, b) -> Double.compare(b.fitness(), a.fitness())).limit(top == null ? 5 : top).toList();
        PrintWriter out = spec.commandLine().getOut();
        boolean sameSuite = judged.name().equals(frozen.suiteName());
        int moved = 0;
        // One worker: here on --device, or (--workers slurm) a step of the allocation, judged again elsewhere if lost.
        Optional<List<SrunLauncher>> slurm = placement.slurm(System.getenv(), Optional.of(1));
        // As the campaign judged them: with sanitize: every, each passing mutant is sanitized again too.
        if (slurm.isPresent()) {
            Tools.refuseSanitizeEveryOnSlurm(settings);
        }
        Optional<ComputeSanitizer> sanitizer = slurm.isPresent() ? Optional.empty() : Workers.sanitizer(settings, false);
        try (WorkerPool supervisor = slurm.isPresent()
                ? Workers.slurmPool(slurm.get(), Optional.ofNullable(nvrtc), judged, baseline, settings, 0)
                : WorkerPool.start(List.of(Workers.supervisor(Optional.of(device), Optional.ofNullable(nvrtc), judged,
                        baseline, settings, Tools.sanitizing(sanitizer))), null, System.err::println)) {
            out.printf("re-evaluating %d mutant(s) of %s on %s, op %s, dtype %s, suite %s, baseline %s%n",
                    chosen.size(), campaign, supervisor.ready().getFirst().judgedOn(), settings.op(),
                    settings.dtype().id(), judged.name(), baseline.choice().describe());
            out.printf("  %-18s %-14s %-14s %10s %10s %11s%n", "mutant", "recorded", "now", "score", "then", "change");
            for (MutantRecord m : chosen) {
                KernelFile file = ContractParser.parse(m.id() + ".cu", store.sourcePath(m.id()), store.source(m.id()));
                CandidateResult now = supervisor.evaluate(file, m.result().inputSeed(), Evaluator.Run.plain());
                store.saveRejudged(m.id(), new Rejudged(Version.current(), Instant.now().toString(), settings.cases(),
                        now));
                String change = "";
                boolean flagged = now.verdict() != m.result().verdict();
                if (now.passed() && m.passed()) {
                    double delta = now.score().speedup() / m.fitness() - 1;
                    // On another suite the recorded score is no reference; only a verdict change is news.
                    change = sameSuite ? String.format(Locale.ROOT, "%+.1f%%", delta * 100) : "other suite";
                    flagged |= sameSuite && Math.abs(delta) > noise;
                }
                if (flagged) {
                    moved++;
                }
                out.printf(Locale.ROOT, "  %-18s %-14s %-14s %10s %10s %11s%s%n", m.id(), m.result().verdict().id(),
                        now.verdict().id(), now.passed() ? String.format(Locale.ROOT, "%.3fx", now.score().speedup()) : "-",
                        m.passed() ? String.format(Locale.ROOT, "%.3fx", m.fitness()) : "-", change,
                        flagged ? "  MOVED" : "");
            }
        }
        out.println(moved == 0 ? "all reproduced within " + Math.round(noise * 100) + "%"
                : moved + " moved beyond the noise bound or changed verdict");
        return moved == 0 ? ExitCode.OK : ExitCode.REJECTED;
    }
}
