package dev.kevo.report;

import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.report.ReportData.ChampionMoment;
import dev.kevo.report.ReportData.IslandPoint;
import dev.kevo.report.ReportData.IslandSeries;
import dev.kevo.report.ReportData.LineageEdge;
import dev.kevo.report.ReportData.LineageGraph;
import dev.kevo.report.ReportData.LineageNode;
import dev.kevo.report.ReportData.ScorePoint;
import dev.kevo.report.ReportData.ShapeBars;
import dev.kevo.report.ReportData.ShapeSeries;
import dev.kevo.report.ReportData.Summary;
import dev.kevo.report.ReportData.TopRow;
import dev.kevo.report.ReportData.UsagePoint;
import dev.kevo.report.ReportData.UsageSeries;
import dev.kevo.report.ReportData.VerdictBin;
import dev.kevo.store.CampaignStore;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Gathers what {@code kevo report} shows about one campaign from its folder (through {@link CampaignStore}):
 * progress per island, champion moments, the champion's lineage, per-shape bars, verdicts and LLM usage per
 * generation, the top mutants and the sources the page can open.
 *
 * <p>Time order is the order mutants were judged (their {@code createdAt}, written right after judging), and
 * "evaluations" counts what kevo counts: a cache hit or an agent failure is not a new evaluation. The champion
 * moments follow the campaign's own rule (a passing mutant strictly better than the best so far), so they
 * match the champion events in events.jsonl without parsing the log.
 */
public final class CampaignReport {

    private CampaignReport() {
    }

    /**
     * @param top how many of the best distinct mutants the table lists
     * @param pageDir where the page will be written: its links to mutant files are relative to it
     */
    public static ReportData gather(CampaignStore store, int top, Path pageDir) {
        FrozenCampaign frozen = store.frozen();
        Optional<CampaignState> state = store.state();
        List<MutantRecord> ordered = inEvaluationOrder(store.mutants());
        Map<String, MutantRecord> byId = new LinkedHashMap<>();
        ordered.forEach(m -> byId.put(m.id(), m));
        Instant start = instant(frozen.createdAt())
                .orElse(ordered.isEmpty() ? Instant.EPOCH : instant(ordered.getFirst().createdAt()).orElse(Instant.EPOCH));
        List<ScorePoint> evaluations = evaluations(ordered, start, LlmUsage::of);

        List<ChampionMoment> champions = champions(evaluations);
        // state.json names the champion after each generation; a folder without one (the seeds still being
        // judged) has the last champion moment.
        MutantRecord champion = state.map(CampaignState::bestId).map(byId::get)
                .orElse(champions.isEmpty() ? null : byId.get(champions.getLast().id()));
        List<MutantRecord> seeds = ordered.stream().filter(MutantRecord::isSeed).toList();
        LineageGraph lineage = lineage(ordered, champion);
        FileLinks links = new FileLinks(pageDir, store.dir());
        List<TopRow> topRows = top(ordered, top, links);

        Set<String> opened = new LinkedHashSet<>();
        lineage.nodes().forEach(n -> opened.add(n.id()));
        topRows.forEach(r -> opened.add(r.id()));
        seeds.forEach(s -> opened.add(s.id()));
        Map<String, MutantView> mutants = new LinkedHashMap<>();
        for (String id : opened) {
            mutants.put(id, MutantView.of(store, byId.get(id), links));
        }

        int islands = Math.max(frozen.config().islands(),
                ordered.stream().mapToInt(MutantRecord::island).max().orElse(-1) + 1);
        Summary summary = summary(store, frozen, state, evaluations, champion, islands);
        return new ReportData("campaign", summary, evaluations, islandSeries(evaluations, islands),
                champions, shapeBars(frozen.shapes(), champion, seeds, frozen.baseline().label()), lineage,
                verdictBins(evaluations), usageSeries(evaluations), topRows, mutants);
    }

    private static Summary summary(CampaignStore store, FrozenCampaign frozen, Optional<CampaignState> state,
                                   List<ScorePoint> evaluations, MutantRecord champion, int islands) {
        Map<String, Integer> verdicts = new TreeMap<>();
        evaluations.forEach(e -> verdicts.merge(e.verdict(), 1, Integer::sum));
        double minutes = state.map(s -> s.elapsedMillis() / 60_000.0)
                .orElse(evaluations.isEmpty() ? 0 : evaluations.getLast().minutes());
        Summary.Builder summary = Summary.builder(store.dir().toAbsolutePath().normalize().getFileName().toString())
                .recorded(frozen.kevoVersion(), frozen.createdAt()).suite(frozen.suiteName(), frozen.shapes())
                .op(frozen.settings().op()).dtype(frozen.settings().dtype().id()).baseline(frozen.baseline().label())
                .islands(islands, frozen.config().population(),
                        frozen.config().agents().stream().map(a -> a.name()).toList())
                .generation(state.map(CampaignState::generation).orElse(null))
                .evaluations(evaluations.isEmpty() ? 0 : evaluations.getLast().evaluation())
                .mutants(evaluations.size())
                .cacheHits((int) evaluations.stream().filter(e -> e.cachedFrom() != null).count())
                .rejected((int) evaluations.stream().filter(e -> e.score() == null).count())
                .minutes(minutes).verdicts(verdicts);
        if (champion != null) {
            summary.champion(champion.id(), champion.fitness(), champion.result().score())
                    .championChecks(store.sanitizedLine(champion.id()).orElse(null),
                            confirmed(store, champion.id()), ChampionStanding.of(store, frozen, champion).orElse(null));
        }
        return summary.build();
    }

    /**
     * The champion's own confirmation, in one line: the recorded score and floor are the best of many noisy
     * judgements, the confirmed ones were measured side by side with the other contenders.
     */
    private static String confirmed(CampaignStore store, String id) {
        return store.confirmation().flatMap(c -> c.entry(id).filter(e -> e.confirmed().passed()).map(e -> {
            CandidateResult r = e.confirmed();
            return String.format(Locale.ROOT, "confirmed side by side with the best %d on %s: score %.3fx, memory "
                    + "floor %.3f", c.entries().size(), c.device(), r.score().speedup(), r.score().floorFraction())
                    + (c.judgedElements() == null ? "" : String.format(Locale.ROOT,
                    ", judged on shapes of up to %,d elements", c.judgedElements()));
        })).orElse(null);
    }

    /** Judging order: createdAt is written when a mutant's result is saved; the id breaks ties. */
    static List<MutantRecord> inEvaluationOrder(List<MutantRecord> mutants) {
        return mutants.stream().sorted(Comparator.comparing((MutantRecord m) -> instant(m.createdAt()).orElse(null),
                Comparator.nullsLast(Comparator.naturalOrder())).thenComparing(MutantRecord::id)).toList();
    }

    static List<ScorePoint> evaluations(List<MutantRecord> ordered, Instant start,
                                        Function<MutantRecord, List<LlmUsage>> usage) {
        List<ScorePoint> out = new ArrayList<>();
        int evaluated = 0;
        double minutes = 0;
        for (MutantRecord m : ordered) {
            Verdict verdict = m.result().verdict();
            if (m.judged()) {
                evaluated++;
            }
            Optional<Instant> at = instant(m.createdAt());
            if (at.isPresent()) {
                minutes = (at.get().toEpochMilli() - start.toEpochMilli()) / 60_000.0;
            }
            out.add(new ScorePoint(m.id(), evaluated, minutes, m.island(), m.generation(), m.agent(), m.operator(),
                    verdict.id(), VerdictGroup.of(verdict).label(), m.passed() ? m.fitness() : null, m.cachedFrom(),
                    usage.apply(m)));
        }
        return out;
    }

    /**
     * Per island: a first point for the seeds (every island starts from them), then one per generation at the
     * island's last mutant of it, with the best score so far and the median of that generation's passing children.
     */
    static List<IslandSeries> islandSeries(List<ScorePoint> evaluations, int islands) {
        List<ScorePoint> seeds = evaluations.stream().filter(e -> e.island() < 0).toList();
        List<Double> seedScores = scores(seeds);
        Double seedBest = seedScores.stream().max(Double::compare).orElse(null);
        List<IslandSeries> out = new ArrayList<>();
        for (int island = 0; island < islands; island++) {
            List<IslandPoint> points = new ArrayList<>();
            if (!seeds.isEmpty()) {
                ScorePoint last = seeds.getLast();
                points.add(new IslandPoint(0, last.evaluation(), last.minutes(), seedBest, median(seedScores),
                        seeds.size(), seedScores.size()));
            }
            int i = island;
            Map<Integer, List<ScorePoint>> byGeneration = evaluations.stream().filter(e -> e.island() == i)
                    .collect(Collectors.groupingBy(ScorePoint::generation, TreeMap::new, Collectors.toList()));
            Double best = seedBest;
            for (Map.Entry<Integer, List<ScorePoint>> generation : byGeneration.entrySet()) {
                List<Double> passed = scores(generation.getValue());
                for (double s : passed) {
                    best = best == null ? s : Math.max(best, s);
                }
                ScorePoint last = generation.getValue().getLast();
                points.add(new IslandPoint(generation.getKey(), last.evaluation(), last.minutes(), best,
                        median(passed), generation.getValue().size(), passed.size()));
            }
            out.add(new IslandSeries(island, points));
        }
        return out;
    }

    /** The campaign's rule (Recorder.remember): a passing mutant strictly better than the best so far. */
    static List<ChampionMoment> champions(List<ScorePoint> evaluations) {
        List<ChampionMoment> out = new ArrayList<>();
        Double best = null;
        for (ScorePoint e : evaluations) {
            if (MutantRecord.beats(e.score(), best)) {
                best = e.score();
                out.add(new ChampionMoment(e.id(), e.evaluation(), e.minutes(), e.score(), e.island(), e.generation()));
            }
        }
        return out;
    }

    /**
     * The champion, the baseline and the copy that defines the memory floor, all from the champion's record (one
     * process measured them side by side), then every passing seed from its own record, best first.
     */
    static ShapeBars shapeBars(List<String> shapes, MutantRecord champion, List<MutantRecord> seeds) {
        return shapeBars(shapes, champion, seeds, "baseline");
    }

    /** @param baseline the baseline as users name it ({@code cuDNN 9.14.0}), the legend of its bars */
    static ShapeBars shapeBars(List<String> shapes, MutantRecord champion, List<MutantRecord> seeds, String baseline) {
        List<ShapeSeries> series = new ArrayList<>();
        if (champion != null) {
            Map<String, ShapeResult> c = byShape(champion);
            series.add(new ShapeSeries(champion.id() + " (champion)", "champion",
                    column(shapes, c, s -> s.candidate() == null ? null : s.candidate().medianMs() * 1000),
                    column(shapes, c, ShapeResult::floorFraction)));
            series.add(new ShapeSeries("baseline".equals(baseline) ? baseline : "baseline: " + baseline, "baseline",
                    column(shapes, c, s -> s.baseline() == null ? null : s.baseline().medianMs() * 1000),
                    column(shapes, c, s -> s.baseline() == null || s.copy() == null ? null
                            : s.copy().medianMs() / s.baseline().medianMs())));
            series.add(new ShapeSeries("memory floor (fastest copy of the same bytes)", "floor",
                    column(shapes, c, s -> s.copy() == null ? null : s.copy().medianMs() * 1000),
                    column(shapes, c, s -> s.copy() == null ? null : 1.0)));
        }
        seeds.stream().filter(MutantRecord::passed).sorted(Comparator.comparingDouble(MutantRecord::fitness).reversed())
                .forEach(seed -> {
                    Map<String, ShapeResult> s = byShape(seed);
                    series.add(new ShapeSeries(seed.id(), "seed",
                            column(shapes, s, r -> r.candidate() == null ? null : r.candidate().medianMs() * 1000),
                            column(shapes, s, ShapeResult::floorFraction)));
                });
        return new ShapeBars(shapes, series);
    }

    private static Map<String, ShapeResult> byShape(MutantRecord m) {
        Map<String, ShapeResult> out = new LinkedHashMap<>();
        m.result().shapes().forEach(s -> out.put(s.shape(), s));
        return out;
    }

    private static List<Double> column(List<String> shapes, Map<String, ShapeResult> results,
                                       Function<ShapeResult, Double> value) {
        List<Double> out = new ArrayList<>();
        for (String shape : shapes) {
            ShapeResult r = results.get(shape);
            out.add(r == null ? null : value.apply(r));
        }
        return out;
    }

    /** Every ancestor of the champion through every parent, with an edge per parent. */
    static LineageGraph lineage(List<MutantRecord> mutants, MutantRecord champion) {
        if (champion == null) {
            return new LineageGraph(null, List.of(), List.of());
        }
        List<MutantRecord> ancestors = new Lineage(mutants, champion.id()).ancestors();
        Set<String> ids = ancestors.stream().map(MutantRecord::id).collect(Collectors.toSet());
        List<LineageNode> nodes = new ArrayList<>();
        List<LineageEdge> edges = new ArrayList<>();
        for (MutantRecord m : ancestors) {
            String role = m.id().equals(champion.id()) ? "champion" : m.isSeed() ? "seed" : "mutant";
            nodes.add(new LineageNode(m.id(), m.generation(), m.island(), m.agent(), m.operator(), m.summary(),
                    m.result().verdict().id(), m.passed() ? m.fitness() : null, role));
            for (String parent : m.parents()) {
                if (ids.contains(parent)) {
                    edges.add(new LineageEdge(parent, m.id(), edgeKind(m)));
                }
            }
        }
        return new LineageGraph(champion.id(), nodes, edges);
    }

    /**
     * Two parents make a crossover whatever the agent called it; a one-parent "repair" fixes a rejected parent; a
     * "tuning" step moved only knob values.
     */
    static String edgeKind(MutantRecord child) {
        if (child.parents().size() >= 2) {
            return "crossover";
        }
        if (StepKind.of(child) == StepKind.TUNING) {
            return "tuning";
        }
        return "repair".equals(child.operator()) ? "repair" : "mutation";
    }

    static List<VerdictBin> verdictBins(List<ScorePoint> evaluations) {
        Map<Integer, List<ScorePoint>> byGeneration = evaluations.stream()
                .collect(Collectors.groupingBy(ScorePoint::generation, TreeMap::new, Collectors.toList()));
        List<VerdictBin> out = new ArrayList<>();
        byGeneration.forEach((generation, list) -> {
            Map<String, Integer> groups = new LinkedHashMap<>();
            for (VerdictGroup g : VerdictGroup.values()) {
                int n = (int) list.stream().filter(e -> e.group().equals(g.label())).count();
                if (n > 0) {
                    groups.put(g.label(), n);
                }
            }
            Map<String, Integer> verdicts = new TreeMap<>();
            list.forEach(e -> verdicts.merge(e.verdict(), 1, Integer::sum));
            out.add(new VerdictBin(generation, groups, verdicts));
        });
        return out;
    }

    /** Running totals per model, one point per mutant that used it; empty when no record carries usage. */
    static List<UsageSeries> usageSeries(List<ScorePoint> evaluations) {
        Map<String, List<UsagePoint>> byModel = new TreeMap<>();
        for (ScorePoint e : evaluations) {
            Map<String, long[]> tokens = new LinkedHashMap<>();
            Map<String, double[]> cost = new LinkedHashMap<>();
            for (LlmUsage u : e.usage()) {
                tokens.computeIfAbsent(u.model(), k -> new long[1])[0] += u.tokens();
                cost.computeIfAbsent(u.model(), k -> new double[1])[0] += u.costUsd();
            }
            for (String model : tokens.keySet()) {
                List<UsagePoint> points = byModel.computeIfAbsent(model, k -> new ArrayList<>());
                long t = tokens.get(model)[0];
                double c = cost.get(model)[0];
                long totalTokens = t + (points.isEmpty() ? 0 : points.getLast().totalTokens());
                double totalCost = c + (points.isEmpty() ? 0 : points.getLast().totalCostUsd());
                points.add(new UsagePoint(e.id(), e.evaluation(), e.minutes(), t, c, totalTokens, totalCost));
            }
        }
        return byModel.entrySet().stream().map(en -> new UsageSeries(en.getKey(), en.getValue())).toList();
    }

    /**
     * The best passing mutants, one per distinct kernel: a cache hit repeats an earlier kernel's result and is
     * left out, so the table does not list one kernel several times.
     */
    static List<TopRow> top(List<MutantRecord> mutants, int n, FileLinks links) {
        List<MutantRecord> best = mutants.stream().filter(MutantRecord::passed).filter(m -> m.cachedFrom() == null)
                .sorted(Comparator.comparingDouble(MutantRecord::fitness).reversed().thenComparing(MutantRecord::id))
                .limit(n).toList();
        List<TopRow> out = new ArrayList<>();
        for (MutantRecord m : best) {
            Optional<ShapeResult> worst = m.result().shapes().stream().filter(s -> s.floorFraction() != null)
                    .min(Comparator.comparingDouble(ShapeResult::floorFraction));
            out.add(new TopRow(out.size() + 1, m.id(), m.fitness(), m.result().score().floorFraction(), m.generation(),
                    m.island(), m.agent(), m.operator(), m.summary(), worst.map(ShapeResult::shape).orElse(null),
                    worst.map(ShapeResult::floorFraction).orElse(null), links.file(m.id() + ".cu"),
                    links.file(m.id() + ".json")));
        }
        return out;
    }

    private static List<Double> scores(List<ScorePoint> evaluations) {
        return evaluations.stream().map(ScorePoint::score).filter(s -> s != null).toList();
    }

    static Double median(List<Double> values) {
        if (values.isEmpty()) {
            return null;
        }
        List<Double> sorted = values.stream().sorted().toList();
        int mid = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(mid) : (sorted.get(mid - 1) + sorted.get(mid)) / 2;
    }

    static Optional<Instant> instant(String text) {
        if (text == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(text));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
