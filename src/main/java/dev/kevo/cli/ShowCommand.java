package dev.kevo.cli;

import dev.kevo.ExitCode;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.ShapeResult;
import dev.kevo.report.ChampionStanding;
import dev.kevo.report.EvalTable;
import dev.kevo.data.Spend;
import dev.kevo.report.StepKind;
import dev.kevo.store.CampaignStore;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.DoubleSummaryStatistics;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "show", mixinStandardHelpOptions = true,
        header = "Summarise a campaign: progress, champion per shape, verdicts.",
        description = "Summarises a campaign: its config, how far it got, the champion per shape, and the verdicts.",
        footer = {"", "Example: kevo show mutations/sample-h100 (the sample campaign shipped with kevo)"})
public final class ShowCommand implements Callable<ExitCode>, ExitCodeHelp.Documented {

    @Parameters(paramLabel = "CAMPAIGN", description = "A campaign folder.")
    Path campaign;

    @Spec
    CommandSpec spec;

    @Override
    public Map<ExitCode, String> exitCodes() {
        return Map.of(
                ExitCode.OK, "shown",
                ExitCode.USAGE, "not a campaign folder, or a damaged one");
    }

    @Override
    public ExitCode call() {
        CampaignStore store = CampaignStore.open(campaign);
        FrozenCampaign frozen = store.frozen();
        CampaignConfig c = frozen.config();
        List<MutantRecord> mutants = store.mutants();
        // Read before anything is printed: a damaged folder is one error line, not half an answer and then one.
        CampaignState state = store.state().orElse(null);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("campaign %s (kevo %s, started %s)%n", store.dir(), frozen.kevoVersion(), frozen.createdAt());
        out.printf("  op %s, suite %s (%d shapes), dtype %s, baseline %s, %d islands x %d, %d children/generation, "
                        + "migration every %d, agents %s, seed %d%n", frozen.settings().op(), frozen.suiteName(),
                frozen.shapes().size(), frozen.settings().dtype().id(), frozen.baseline().describe(),
                c.islands(), c.population(), c.childrenPerGeneration(), c.migrationInterval(),
                c.agents().stream().map(a -> a.name() + (a.weight() == null ? "" : "x" + a.weight()))
                        .collect(Collectors.joining(", ")), c.randomSeed());
        if (state != null) {
            out.printf(Locale.ROOT, "  generation %d, %d evaluations, %.1f min%n", state.generation(),
                    state.evaluations(), state.elapsedMillis() / 60_000.0);
        }
        Spend spend = mutants.stream().map(MutantRecord::model).reduce(Spend.NONE, Spend::plus, (a, b) -> a);
        if (spend.inputTokens() + spend.outputTokens() > 0) {
            out.printf(Locale.ROOT, "  models: %d input + %d output tokens, cost %.4f%s%n", spend.inputTokens(),
                    spend.outputTokens(), spend.cost(), c.stop().cost() > 0
                            ? String.format(Locale.ROOT, " (budget %.4f)", c.stop().cost()) : "");
        }
        Map<String, Long> devices = mutants.stream().filter(m -> m.result().device() != null)
                .collect(Collectors.groupingBy(m -> m.result().device(), TreeMap::new, Collectors.counting()));
        if (devices.size() > 1) {
            out.println("  judged on: " + devices.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                    .collect(Collectors.joining(", ")));
        }
        long cached = mutants.stream().filter(m -> m.cachedFrom() != null).count();
        out.printf("  %d mutants (%d seeds, %d cache hits)%n", mutants.size(),
                mutants.stream().filter(MutantRecord::isSeed).count(), cached);
        Map<String, Long> verdicts = mutants.stream().collect(Collectors.groupingBy(m -> m.result().verdict().id(),
                TreeMap::new, Collectors.counting()));
        out.println("  verdicts: " + verdicts.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")));
        Map<String, Long> agents = mutants.stream().collect(Collectors.groupingBy(MutantRecord::agent, TreeMap::new,
                Collectors.counting()));
        out.println("  by agent: " + agents.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ")));
        Map<StepKind, Long> steps = mutants.stream().collect(Collectors.groupingBy(StepKind::of,
                () -> new EnumMap<>(StepKind.class), Collectors.counting()));
        out.println("  by step: " + steps.entrySet().stream().map(e -> e.getKey().label() + " " + e.getValue())
                .collect(Collectors.joining(", ")));
        if (state != null && state.bestId() != null) {
            MutantRecord champion = store.mutant(state.bestId()).orElseThrow();
            DoubleSummaryStatistics speedups = champion.result().shapes().stream()
                    .mapToDouble(ShapeResult::speedup).summaryStatistics();
            out.printf(Locale.ROOT, "champion %s: score %.3fx over %s, memory floor %.2f (geometric means; "
                            + "speedups per shape %.2fx to %.2fx)%n", champion.id(), champion.fitness(),
                    frozen.baseline().label(), champion.result().score().floorFraction(), speedups.getMin(),
                    speedups.getMax());
            // Attention's shapes carry their mask kind (4x32x16x32768:additive): the column fits the longest.
            String shapeColumn = "  %-" + champion.result().shapes().stream()
                    .mapToInt(s -> s.shape().length()).reduce("shape".length(), Math::max) + "s";
            out.printf(shapeColumn + " %10s %10s %8s %6s%n", "shape", "time(us)", "base(us)", "speedup", "floor");
            for (ShapeResult s : champion.result().shapes()) {
                out.printf(Locale.ROOT, shapeColumn + " %10.1f %10.1f %7.2fx %6.2f%n", s.shape(),
                        s.candidate().medianMs() * 1000, s.baseline().medianMs() * 1000, s.speedup(),
                        s.floorFraction());
            }
            if (champion.result().deterministic() != null) {
                out.println("  " + EvalTable.determinism(champion.result()));
            }
            out.println("  source: " + store.sourcePath(champion.id()));
            // A champion that newer checks reject, or never ran, is said so first; sanitizing it comes after.
            Optional<String> standing = ChampionStanding.of(store, frozen, champion);
            standing.ifPresent(line -> out.println("  " + line));
            out.println("  sanitized: " + store.sanitizedLine(champion.id())
                    .orElse(standing.isPresent() ? "no" : "no (kevo eval --sanitize " + store.sourcePath(champion.id())
                            + " records it; kevo export asks for it)"));
        }
        if (state != null) {
            store.confirmation().ifPresent(conf -> confirmation(conf, out));
            // Campaigns recorded before confirmation.json followed the sanitizer's choice still name the first there.
            store.confirmation().map(Confirmation::championId).filter(id -> !id.equals(state.bestId()))
                    .ifPresent(id -> out.println("  " + id + " was confirmed first, but compute-sanitizer found "
                            + store.sanitizedLine(id).orElse("something") + "; the champion is the "
                            + "next contender without a finding"));
        }
        List<MutantRecord> top = mutants.stream().filter(MutantRecord::passed)
                .sorted((a, b) -> Double.compare(b.fitness(), a.fitness())).limit(5).toList();
        // Each score beside its memory-floor fraction: a geometric-mean speedup can be carried by one shape.
        out.println("top: " + top.stream().map(m -> String.format(Locale.ROOT, "%s %.3fx", m.id(), m.fitness())
                + (m.result().score() == null ? ""
                        : String.format(Locale.ROOT, " floor %.2f", m.result().score().floorFraction())))
                .collect(Collectors.joining(", ")));
        return ExitCode.OK;
    }

    /**
     * How the champion was confirmed, at scale: each contender's confirmed score and memory floor, or why it failed.
     * The floor is shown again because the recorded one is the best of many noisy judgements, so it runs high.
     */
    private static void confirmation(Confirmation conf, PrintWriter out) {
        out.printf("  confirmed on %s, the best %d judged again side by side, at scale:%n", conf.device(),
                conf.entries().size());
        conf.entries().forEach(e -> out.printf(Locale.ROOT, "    %-14s recorded %.3fx on %s, confirmed %s%n",
                e.id(), e.recordedScore(), e.recordedDevice(), confirmed(e.confirmed())));
        if (conf.judgedElements() != null) {
            out.printf(Locale.ROOT, "  the champion was judged on shapes of up to %,d elements%n",
                    conf.judgedElements());
        }
        if (conf.note() != null) {
            out.println("  " + conf.note());
        }
    }

    private static String confirmed(CandidateResult r) {
        if (!r.passed()) {
            return r.verdict().id() + ": " + r.detail();
        }
        return String.format(Locale.ROOT, "%.3fx floor %.3f", r.score().speedup(), r.score().floorFraction());
    }

}
