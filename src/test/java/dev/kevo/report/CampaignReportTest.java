package dev.kevo.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.ModelUsage;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.report.ReportData.ChampionMoment;
import dev.kevo.report.ReportData.IslandPoint;
import dev.kevo.report.ReportData.IslandSeries;
import dev.kevo.report.ReportData.LineageEdge;
import dev.kevo.report.ReportData.LineageNode;
import dev.kevo.report.ReportData.ScorePoint;
import dev.kevo.report.ReportData.ShapeSeries;
import dev.kevo.report.ReportData.UsageSeries;
import dev.kevo.report.ReportData.VerdictBin;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.SourceHash;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What kevo report gathers from the recorded campaign folder, checked against the records themselves. */
class CampaignReportTest {
    static CampaignStore store;
    static ReportData data;
    static Map<String, MutantRecord> records;

    @BeforeAll
    static void gather() {
        store = CampaignStore.open(ReportFixture.folder());
        data = CampaignReport.gather(store, 5, ReportFixture.folder());
        records = store.mutants().stream().collect(Collectors.toMap(MutantRecord::id, m -> m));
    }

    @Test
    void theFixtureIsAConsistentCampaign() {
        assertEquals(25, records.size());
        for (MutantRecord m : records.values()) {
            for (String parent : m.parents()) {
                assertTrue(records.containsKey(parent), m.id() + " names a missing parent " + parent);
            }
            if (m.cachedFrom() == null) {
                // the fixture was recorded in part before exact source identity: those hashes are legacy ones
                assertTrue(SourceHash.matches(store.source(m.id()), m.sourceHash())
                        || SourceHash.isLegacy(m.sourceHash()), m.id());
            }
        }
        assertEquals(ReportFixture.CHAMPION, store.state().orElseThrow().bestId());
    }

    @Test
    void theSummaryNamesTheCampaignsOperator(@TempDir Path tmp) throws IOException {
        // the fixture was recorded before campaigns named their operator: softmax, as every such campaign judged
        assertEquals("softmax", data.summary().op());
        Path copy = ReportFixture.copy(tmp);
        Path frozen = copy.resolve("campaign.yaml");
        Files.writeString(frozen, Files.readString(frozen).replace("\neval:\n", "\neval:\n  op: \"log_softmax\"\n"));
        assertEquals("log_softmax", CampaignReport.gather(CampaignStore.open(copy), 5, tmp.resolve("pages")).summary()
                .op());
    }

    @Test
    void theChampionsScoreIntervalIsShownWhenItsResultHasOne(@TempDir Path tmp) throws IOException {
        assertNull(data.summary().championScoreCi(), "the fixture was saved before scores had an interval");
        Path copy = ReportFixture.copy(tmp);
        Path champion = copy.resolve(ReportFixture.CHAMPION + ".json");
        ObjectMapper json = new ObjectMapper();
        ObjectNode record = (ObjectNode) json.readTree(champion.toFile());
        ((ObjectNode) record.get("result")).put("scoreCiLow", 5.5).put("scoreCiHigh", 6.0);
        json.writeValue(champion.toFile(), record);
        ReportData.Summary s = CampaignReport.gather(CampaignStore.open(copy), 5, tmp.resolve("pages")).summary();
        assertEquals(List.of(5.5, 6.0), s.championScoreCi());
    }

    @Test
    void theChampionsConfirmedScoreAndFloorAreShownBesideTheRecordedOnes(@TempDir Path tmp) {
        assertNull(data.summary().championConfirmed(), "the fixture has no confirmation.json");
        Path copy = ReportFixture.copy(tmp);
        CampaignStore withConfirmation = CampaignStore.open(copy);
        MutantRecord champion = records.get(ReportFixture.CHAMPION);
        CandidateResult judgedAgain = champion.result().toBuilder().device("0 Test GPU")
                .score(champion.fitness() * 0.99, 0.4321).build();
        withConfirmation.saveConfirmation(Confirmation.of(List.of(new Confirmation.Entry(champion.id(), "0 Test GPU",
                champion.fitness(), judgedAgain))));
        String line = CampaignReport.gather(withConfirmation, 5, tmp.resolve("pages")).summary().championConfirmed();
        assertTrue(line != null && line.contains("on 0 Test GPU") && line.contains("memory floor 0.432")
                && line.contains(String.format(java.util.Locale.ROOT, "score %.3fx", champion.fitness() * 0.99)), line);
    }

    @Test
    void summaryCountsWhatKevoCounts() {
        ReportData.Summary s = data.summary();
        assertEquals("default-h100", s.campaign());
        assertEquals(ReportFixture.CHAMPION, s.championId());
        assertEquals(records.get(ReportFixture.CHAMPION).fitness(), s.championScore());
        assertEquals(25, s.mutants());
        assertEquals(2, s.cacheHits());
        assertEquals(23, s.evaluations(), "cache hits are not evaluations");
        assertEquals(8, s.rejected());
        assertEquals(14, s.shapes().size());
        assertEquals(4, s.islands());
        assertEquals(17, s.verdicts().get("pass"));
    }

    @Test
    void evaluationsFollowJudgingOrderAndCacheHitsDoNotCount() {
        List<ScorePoint> e = data.evaluations();
        assertEquals(25, e.size());
        for (int i = 1; i < e.size(); i++) {
            assertTrue(e.get(i).minutes() >= e.get(i - 1).minutes(), "time order at " + e.get(i).id());
        }
        Map<String, ScorePoint> byId = e.stream().collect(Collectors.toMap(ScorePoint::id, x -> x));
        assertEquals(byId.get("g0001-i0-c2").evaluation(), byId.get("g0001-i1-c1").evaluation());
        assertEquals(byId.get("g0001-i0-c2").evaluation() + 1, byId.get("g0002-i0-c1").evaluation());
        assertNull(byId.get("g0002-i0-c1").score(), "rejected: no score");
        assertEquals("compile error", byId.get("g0002-i0-c1").group());
        assertEquals("seed-block_stats", e.getFirst().id());
        assertEquals(3.847 / 60, e.getFirst().minutes(), 0.001, "minutes from campaign.yaml's created_at");
    }

    @Test
    void championMomentsMatchTheChampionEventsOfTheLog() throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> logged = Files.readAllLines(ReportFixture.folder().resolve("events.jsonl")).stream()
                .map(line -> readTree(json, line)).filter(n -> n.path("type").asText().equals("champion"))
                .map(n -> n.path("id").asText()).toList();
        List<String> moments = data.champions().stream().map(ChampionMoment::id).toList();
        assertEquals(logged, moments);
        assertEquals(ReportFixture.CHAMPION, moments.getLast());
        for (int i = 1; i < data.champions().size(); i++) {
            assertTrue(data.champions().get(i).score() > data.champions().get(i - 1).score());
        }
    }

    private static JsonNode readTree(ObjectMapper json, String line) {
        try {
            return json.readTree(line);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void islandsStartFromTheSeedsAndKeepTheirBestSoFar() {
        assertEquals(4, data.islands().size());
        double bestSeed = records.values().stream().filter(MutantRecord::isSeed).mapToDouble(MutantRecord::fitness)
                .max().orElseThrow();
        for (IslandSeries island : data.islands()) {
            IslandPoint first = island.points().getFirst();
            assertEquals(0, first.generation());
            assertEquals(bestSeed, first.best());
            assertEquals(7, first.children());
            for (int i = 1; i < island.points().size(); i++) {
                assertTrue(island.points().get(i).best() >= island.points().get(i - 1).best());
            }
        }
        IslandSeries one = data.islands().get(1);
        IslandPoint last = one.points().getLast();
        assertEquals(18, last.generation());
        assertEquals(records.get("g0018-i1-c0").fitness(), last.best());
        assertEquals(records.get("g0018-i1-c0").fitness(), last.median());
        IslandPoint wrong = one.points().stream().filter(p -> p.generation() == 3).findFirst().orElseThrow();
        assertEquals(1, wrong.children());
        assertEquals(0, wrong.passed());
        assertNull(wrong.median(), "a generation with no passing child has no median");
        // Island 3's first passing child is in generation 16; before that its best is the seeds'.
        IslandPoint three = data.islands().get(3).points().stream().filter(p -> p.generation() == 9).findFirst()
                .orElseThrow();
        assertEquals(bestSeed, three.best());
    }

    @Test
    void lineageIsEveryAncestorWithCrossoverAndMutationEdges() {
        Set<String> ids = data.lineage().nodes().stream().map(LineageNode::id).collect(Collectors.toSet());
        assertEquals(Set.of("seed-block_stats", "seed-warp_shuffle", "g0001-i1-c1", "g0008-i1-c1", "g0011-i1-c0",
                "g0016-i3-c0", ReportFixture.CHAMPION), ids);
        Map<String, String> kinds = data.lineage().edges().stream()
                .collect(Collectors.toMap(e -> e.source() + ">" + e.target(), LineageEdge::kind));
        assertEquals(Map.of("seed-block_stats>g0001-i1-c1", "crossover", "seed-warp_shuffle>g0001-i1-c1", "crossover",
                "g0001-i1-c1>g0008-i1-c1", "mutation", "g0008-i1-c1>g0011-i1-c0", "mutation",
                "g0011-i1-c0>g0016-i3-c0", "mutation", "g0016-i3-c0>g0018-i3-c2", "mutation"), kinds);
        Map<String, String> roles = data.lineage().nodes().stream()
                .collect(Collectors.toMap(LineageNode::id, LineageNode::role));
        assertEquals("champion", roles.get(ReportFixture.CHAMPION));
        assertEquals("seed", roles.get("seed-warp_shuffle"));
        assertEquals("mutant", roles.get("g0011-i1-c0"));
    }

    @Test
    void edgeKindsFollowParentsAndOperator() {
        assertEquals("crossover", CampaignReport.edgeKind(record("c", List.of("a", "b"), "fresh")));
        assertEquals("crossover", CampaignReport.edgeKind(record("c", List.of("a", "b"), "repair")));
        assertEquals("repair", CampaignReport.edgeKind(record("c", List.of("a"), "repair")));
        assertEquals("mutation", CampaignReport.edgeKind(record("c", List.of("a"), "mutate")));
        assertEquals("mutation", CampaignReport.edgeKind(record("c", List.of("a"), "fresh")));
    }

    @Test
    void shapeBarsAreTheChampionsBaselineAndFloorThenSeedsBestFirst() {
        List<ShapeSeries> series = data.shapes().series();
        assertEquals(List.of("champion", "baseline", "floor"), series.subList(0, 3).stream().map(ShapeSeries::role)
                .toList());
        assertEquals(7, series.stream().filter(s -> s.role().equals("seed")).count());
        assertEquals("seed-register_rows", series.get(3).name());
        assertEquals("seed-naive", series.getLast().name());
        MutantRecord champion = records.get(ReportFixture.CHAMPION);
        for (int i = 0; i < data.shapes().shapes().size(); i++) {
            ShapeResult s = champion.result().shapes().get(i);
            assertEquals(s.shape(), data.shapes().shapes().get(i));
            assertEquals(s.candidate().medianMs() * 1000, series.get(0).timeUs().get(i), 1e-9);
            assertEquals(s.floorFraction(), series.get(0).floor().get(i), 1e-12);
            assertEquals(s.baseline().medianMs() * 1000, series.get(1).timeUs().get(i), 1e-9);
            assertEquals(s.copy().medianMs() / s.baseline().medianMs(), series.get(1).floor().get(i), 1e-12);
            assertEquals(s.copy().medianMs() * 1000, series.get(2).timeUs().get(i), 1e-9);
            assertEquals(1.0, series.get(2).floor().get(i));
        }
    }

    @Test
    void verdictsPerGenerationKeepEveryGroup() {
        Map<Integer, VerdictBin> bins = data.verdicts().stream()
                .collect(Collectors.toMap(VerdictBin::generation, b -> b));
        assertEquals(Map.of("pass", 7), bins.get(0).groups());
        assertEquals(Map.of("compile error", 1), bins.get(2).groups());
        assertEquals(Map.of("wrong result", 1), bins.get(3).groups());
        assertEquals(Map.of("nan-output", 1), bins.get(4).verdicts());
        assertEquals(Map.of("crash", 1), bins.get(9).groups());
        assertEquals(Map.of("cheat caught", 1, "pass", 1).keySet(), bins.get(10).groups().keySet());
        assertEquals(Map.of("timeout", 1), bins.get(17).groups());
        Set<String> groups = data.verdicts().stream().flatMap(b -> b.groups().keySet().stream())
                .collect(Collectors.toSet());
        assertEquals(Set.of("pass", "compile error", "wrong result", "timeout", "crash", "cheat caught"), groups);
    }

    @Test
    void topListsDistinctKernelsBestFirstWithLinksRelativeToThePage(@org.junit.jupiter.api.io.TempDir Path tmp) {
        List<ReportData.TopRow> top = data.top();
        assertEquals(5, top.size());
        assertEquals(ReportFixture.CHAMPION, top.getFirst().id());
        assertEquals(ReportFixture.CHAMPION + ".cu", top.getFirst().sourceHref());
        for (int i = 1; i < top.size(); i++) {
            assertTrue(top.get(i - 1).score() >= top.get(i).score());
            assertNull(records.get(top.get(i).id()).cachedFrom(), "cache hits are left out");
        }
        ReportData elsewhere = CampaignReport.gather(store, 3, tmp.resolve("pages"));
        String href = elsewhere.top().getFirst().sourceHref();
        assertTrue(href.endsWith("/mutations/default-h100/" + ReportFixture.CHAMPION + ".cu"), href);
        assertTrue(href.startsWith("../"), href);
    }

    @Test
    void thePageCanOpenLineageTopAndSeedsWithSourcesAndDiffs() {
        Map<String, MutantView> m = data.mutants();
        for (LineageNode n : data.lineage().nodes()) {
            assertTrue(m.containsKey(n.id()), n.id());
        }
        assertTrue(m.keySet().containsAll(records.keySet().stream().filter(id -> id.startsWith("seed-")).toList()));
        MutantView champion = m.get(ReportFixture.CHAMPION);
        assertEquals(store.source(ReportFixture.CHAMPION), champion.source());
        assertEquals(1, champion.diffs().size());
        SourceDiff diff = champion.diffs().getFirst();
        assertEquals("g0016-i3-c0", diff.against());
        assertTrue(diff.unified().startsWith("--- g0016-i3-c0.cu\n+++ g0018-i3-c2.cu\n@@ "), diff.unified());
        assertEquals(2, diff.added());
        assertEquals(2, diff.removed());
        assertTrue(diff.unified().contains("\n-    static constexpr int STATS_LOAD = LOAD_PLAIN;\n+    static constexpr int STATS_LOAD = LOAD_LDCG;"),
                diff.unified());
        assertEquals(2, m.get("g0001-i1-c1").diffs().size(), "a crossover has a diff against each parent");
        assertTrue(m.get("seed-online").diffs().isEmpty());
        assertEquals(14, champion.shapes().size());
        assertFalse(data.mutants().containsKey("g0017-i3-c1"), "rejected mutants outside the lineage stay out");
    }

    @Test
    void noLlmUsageMeansNoUsageSection() {
        assertTrue(data.usage().isEmpty());
    }

    @Test
    void usageComesFromTheModelCallOfARecord() {
        MutantRecord builtin = store.mutant(ReportFixture.CHAMPION).orElseThrow();
        assertEquals(List.of(), LlmUsage.of(builtin), "a builtin mutant has no model call");
        MutantRecord byModel = MutantRecord.builder("m").generation(1).agent("qwen").operator("improve")
                .result(builtin.result()).agentMs(900.0)
                .model(ModelUsage.of("qwen (qwen3-coder)", 900, 1, 1000, 500, 0.02)).build();
        assertEquals(List.of(new LlmUsage("qwen (qwen3-coder)", 1500, 0.02)), LlmUsage.of(byModel));
    }

    @Test
    void usageSeriesKeepRunningTotalsPerModel() {
        List<ScorePoint> e = List.of(
                evaluation("a", 1, List.of(new LlmUsage("big", 100, 1.0))),
                evaluation("b", 2, List.of()),
                evaluation("c", 3, List.of(new LlmUsage("big", 50, 0.5), new LlmUsage("small", 10, 0.01))),
                evaluation("d", 4, List.of(new LlmUsage("big", 5, 0.05), new LlmUsage("big", 5, 0.05))));
        List<UsageSeries> series = CampaignReport.usageSeries(e);
        assertEquals(List.of("big", "small"), series.stream().map(UsageSeries::model).toList());
        List<ReportData.UsagePoint> big = series.getFirst().points();
        assertEquals(List.of("a", "c", "d"), big.stream().map(ReportData.UsagePoint::id).toList());
        assertEquals(List.of(100L, 150L, 160L), big.stream().map(ReportData.UsagePoint::totalTokens).toList());
        assertEquals(1.6, big.getLast().totalCostUsd(), 1e-12);
        assertEquals(10, big.getLast().tokens(), "two calls of one mutant add up");
        assertEquals(1, series.get(1).points().size());
    }

    @Test
    void medianOfEvenAndOddLists() {
        assertEquals(2.0, CampaignReport.median(List.of(3.0, 1.0, 2.0)));
        assertEquals(2.5, CampaignReport.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertNull(CampaignReport.median(List.of()));
    }

    @Test
    void verdictGroupsAnswerTheReadersQuestions() {
        assertEquals(VerdictGroup.COMPILE, VerdictGroup.of(Verdict.COMPILE_ERROR));
        assertEquals(VerdictGroup.TIMEOUT, VerdictGroup.of(Verdict.COMPILE_TIMEOUT));
        assertEquals(VerdictGroup.CRASH, VerdictGroup.of(Verdict.WORKER_CRASHED));
        assertEquals(VerdictGroup.WRONG, VerdictGroup.of(Verdict.UNWRITTEN_OUTPUT));
        assertEquals(VerdictGroup.CHEAT, VerdictGroup.of(Verdict.STALE_RESULT));
        assertEquals(VerdictGroup.CHEAT, VerdictGroup.of(Verdict.INPUT_MODIFIED));
        assertEquals(VerdictGroup.CHEAT, VerdictGroup.of(Verdict.TIMED_OUTPUT_WRONG));
        assertEquals(VerdictGroup.CHEAT, VerdictGroup.of(Verdict.FASTER_THAN_MEMORY));
        assertEquals(VerdictGroup.AGENT, VerdictGroup.of(Verdict.AGENT_FAILURE));
    }

    @Test
    void aCampaignWithoutAChampionHasNoLineageOrBars() {
        MutantRecord failed = record("seed-x", List.of(), "seed");
        assertTrue(CampaignReport.lineage(List.of(failed), null).nodes().isEmpty());
        assertTrue(CampaignReport.shapeBars(List.of("32x128"), null, List.of(failed)).series().isEmpty());
        assertTrue(CampaignReport.champions(CampaignReport.evaluations(List.of(failed), java.time.Instant.EPOCH,
                id -> List.of())).isEmpty());
    }

    private static ScorePoint evaluation(String id, int n, List<LlmUsage> usage) {
        return new ScorePoint(id, n, n, 0, 1, "llm", "mutate", "pass", "pass", 1.0, null, usage);
    }

    private static MutantRecord record(String id, List<String> parents, String operator) {
        return MutantRecord.builder(id).parents(parents).generation(1).agent("builtin").operator(operator)
                .result(CandidateResult.rejected(id + ".cu", null, null, Verdict.WRONG_RESULT, "bad", 1)).build();
    }
}
