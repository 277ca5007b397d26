package dev.kevo.evolve;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli.Outcome;
import dev.kevo.cli.Main;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Stats;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.KernelFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kevo show and kevo lineage on a real campaign folder (made with the GPU double of CampaignTest). */
class CampaignCommandsTest {
    @TempDir
    static Path dir;
    static Path folder;
    static CampaignState state;

    @BeforeAll
    static void runCampaign() {
        CampaignConfig config = CampaignTest.config(5);
        folder = dir.resolve("c");
        CampaignStore store = CampaignTest.store(folder, config);
        state = CampaignTest.run(store, config, new CampaignTest.FakeGpu(Integer.MAX_VALUE));
    }

    @Test
    void showNamesTheChampionAndCountsVerdicts() {
        Outcome r = kevo("show", folder.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("generation 5"), r.out());
        assertTrue(r.out().contains("champion " + state.bestId()), r.out());
        assertTrue(r.out().contains("verdicts: pass"), r.out());
        assertTrue(r.out().contains("op softmax, suite "), "every figure names the operator: " + r.out());
    }

    @Test
    void showLinesUpTheChampionsTableWhateverItsShapesNames(@TempDir Path tmp) {
        // Attention's cases carry their mask kind: names longer than a plain shape's must not push their rows out.
        List<String> names = List.of("4x100", "4x32x16x32768:additive");
        Judge gpu = new Judge() {
            @Override
            public CandidateResult evaluate(KernelFile file, long inputSeed) {
                CandidateResult r = CampaignTest.FakeGpu.judge(file, inputSeed);
                return r.verdict() != Verdict.PASS ? r : CandidateResult.builder(file.name(), Verdict.PASS, inputSeed)
                        .score(r.score()).compiled(1.0, null, null).evaluationMs(1.0)
                        .shapes(names.stream().map(n -> ShapeResult.checked(n, 1, 0, 0, null).withTiming(
                                ms(0.0123), ms(0.0456), ms(0.0111), "memcpy")).toList()).build();
            }

            @Override
            public CandidateResult confirm(KernelFile file, long inputSeed) {
                return evaluate(file, inputSeed);
            }
        };
        CampaignConfig config = CampaignTest.config(2);
        Path attention = tmp.resolve("c");
        CampaignTest.run(CampaignTest.store(attention, config), config, gpu);
        List<String> table = kevo("show", attention.toString()).out().lines()
                .filter(l -> l.trim().startsWith("shape ") || names.stream().anyMatch(n -> l.startsWith("  " + n + " ")))
                .toList();
        assertEquals(1 + names.size(), table.size(), String.join("\n", table));
        int timeEnds = table.getFirst().indexOf("time(us)") + "time(us)".length();
        assertTrue(table.stream().skip(1).allMatch(l -> l.indexOf("12.3") + "12.3".length() == timeEnds),
                String.join("\n", table));
    }

    private static Stats ms(double median) {
        return new Stats(20, median, median, median, median, median, median);
    }

    @Test
    void lineageTracesTheChampionBackToASeed() {
        Outcome r = kevo("lineage", folder.toString());
        assertEquals(0, r.code(), r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.getFirst().startsWith("scores are x over b, softmax in fp32 (geometric-mean speedup)"),
                "the baseline, the operator and the dtype first");
        lines = lines.subList(1, lines.size());
        assertTrue(lines.getFirst().startsWith("seed-"), r.out());
        assertTrue(lines.getLast().contains(state.bestId()), r.out());
        assertTrue(lines.stream().skip(1).allMatch(l -> l.contains("└─ ")), r.out());
    }

    @Test
    void lineageDrawsGraphsAndJson() {
        String dot = kevo("lineage", folder.toString(), "--format", "dot").out();
        assertTrue(dot.startsWith("digraph lineage {") && dot.contains("->") && dot.contains("style=bold"), dot);
        String mermaid = kevo("lineage", folder.toString(), "--format", "mermaid").out();
        assertTrue(mermaid.startsWith("graph TD") && mermaid.contains("-->"), mermaid);
        String json = kevo("lineage", folder.toString(), "--format", "json").out();
        assertTrue(json.trim().startsWith("[") && json.contains("\"id\" : \"" + state.bestId() + "\""), json);
    }

    @Test
    void showAndLineageTellWhatModelsCostAndWhereTheChampionWasConfirmed() {
        CampaignConfig config = CampaignModelsTest.config(3, 0);
        Path models = dir.resolve("models");
        CampaignTest.FakeGpu gpu = new CampaignTest.FakeGpu(Integer.MAX_VALUE);
        Judge twoDevices = new Judge() {
            private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

            @Override
            public dev.kevo.data.CandidateResult evaluate(dev.kevo.task.KernelFile file, long seed) {
                return gpu.evaluate(file, seed).toBuilder().device(calls.getAndIncrement() % 2 + " Fake GPU").build();
            }

            @Override
            public dev.kevo.data.CandidateResult confirm(dev.kevo.task.KernelFile file, long seed) {
                // A floor no recorded judgement has: show must print the confirmation's own.
                dev.kevo.data.CandidateResult r = gpu.evaluate(file, seed);
                return r.toBuilder().device("0 Fake GPU").score(r.score().speedup(), 0.4321).build();
            }
        };
        CampaignModelsTest.run(CampaignTest.store(models, config), config, new CampaignModelsTest.ModelLike(), twoDevices);
        String show = kevo("show", models.toString()).out();
        assertTrue(show.contains("models: ") && show.contains(" tokens, cost "), show);
        assertTrue(show.contains("judged on: 0 Fake GPU") && show.contains("1 Fake GPU"), show);
        assertTrue(show.contains("confirmed on 0 Fake GPU, the best 3 judged again side by side"), show);
        assertTrue(show.lines().filter(l -> l.contains(" recorded ") && l.contains(", confirmed "))
                .allMatch(l -> l.endsWith("x floor 0.432")), show);
        String lineage = kevo("lineage", models.toString()).out();
        assertTrue(lineage.contains("[model (fake-1), 1000+200 tokens, 0.0100"), lineage);
    }

    @Test
    void anUnknownMutantOrFolderIsOneLineAndExitTwo() {
        Outcome r = kevo("lineage", folder.toString(), "--id", "g9999-i0-c0");
        assertEquals(2, r.code());
        assertEquals("kevo: no mutant 'g9999-i0-c0' in this campaign", r.err().strip());
        Outcome s = kevo("show", dir.resolve("nothing").toString());
        assertEquals(2, s.code());
        assertEquals("kevo: " + dir.resolve("nothing") + ": no such folder", s.err().strip());
    }

    @Test
    void evolveWithABadConfigKeyNamesIt(@TempDir Path tmp) throws Exception {
        Path bad = tmp.resolve("bad.yaml");
        java.nio.file.Files.writeString(bad, "islands: 2\nselection:\n  tournament: 3\n");
        Outcome r = kevo("evolve", "--config", bad.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains(bad + ":3: unknown key 'selection.tournament'"), r.err());
        java.nio.file.Files.writeString(bad, "islands: 0\n");
        r = kevo("evolve", "--config", bad.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("islands: between 1 and 64"), r.err());
    }

    @Test
    void whatACommandPrintsReachesStdoutBeforeTheJvmExits() {
        java.io.PrintStream original = System.out;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(captured, false));
        try {
            assertEquals(0, Main.run("lineage", folder.toString()));
        } finally {
            System.setOut(original);
        }
        assertTrue(captured.toString().contains(state.bestId()), "lineage output was not flushed: '" + captured + "'");
    }

    @Test
    void aFolderWrittenBeforeASettingExistedStillReadsWithItsDefault(@TempDir Path tmp) throws Exception {
        CampaignStore store = CampaignTest.store(tmp.resolve("old"), CampaignTest.config(1));
        Path yaml = tmp.resolve("old/campaign.yaml");
        String text = java.nio.file.Files.readString(yaml);
        assertTrue(text.contains("worker_memory_gb") && text.contains("settle_ms"), text);
        java.nio.file.Files.writeString(yaml, text.lines().filter(l -> !l.contains("worker_memory_gb")
                && !l.contains("settle_ms")).collect(java.util.stream.Collectors.joining("\n")));
        dev.kevo.data.EvalSettings settings = CampaignStore.open(tmp.resolve("old")).frozen().settings();
        assertEquals(dev.kevo.data.PhaseLimits.defaults().workerMemoryGb(), settings.limits().workerMemoryGb());
        assertEquals(dev.kevo.data.MeasurementMethod.defaults().settleMillis(), settings.measurement().settleMillis());
    }
}
