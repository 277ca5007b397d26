package dev.kevo.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.MeasurementMethod;
import dev.kevo.data.MutantRecord;
import dev.kevo.report.CompareData.ShapeCompare;
import dev.kevo.store.CampaignStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** kevo report --compare: what a side names, shape-by-shape ratios, and the warnings a reader needs. */
class CampaignCompareTest {
    static final Path FOLDER = ReportFixture.folder();

    @Test
    void aSideIsACampaignFolderOrAMutantInOne() {
        assertNull(CampaignCompare.resolve(FOLDER).mutantId());
        assertEquals("seed-online", CampaignCompare.resolve(FOLDER.resolve("seed-online")).mutantId());
        assertEquals("seed-online", CampaignCompare.resolve(FOLDER.resolve("seed-online.json")).mutantId());
        assertEquals("seed-online", CampaignCompare.resolve(FOLDER.resolve("seed-online.cu")).mutantId());
        assertEquals("champion", CampaignCompare.resolve(FOLDER.resolve("champion.json")).mutantId());
        KevoException bad = assertThrows(KevoException.class, () -> CampaignCompare.resolve(FOLDER.resolve("g9999")));
        assertEquals(KevoException.Kind.INPUT, bad.kind());
        assertTrue(bad.getMessage().contains("neither a campaign folder nor a mutant"), bad.getMessage());
        KevoException notCampaign = assertThrows(KevoException.class,
                () -> CampaignCompare.resolve(FOLDER.getParent()));
        assertTrue(notCampaign.getMessage().contains("not a campaign folder"), notCampaign.getMessage());
    }

    @Test
    void aCampaignAgainstOneOfItsSeedsComparesTheChampionShapeByShape(@TempDir Path tmp) {
        CompareData c = CampaignCompare.compare(FOLDER, FOLDER.resolve("seed-online.json"), tmp);
        assertTrue(c.a().campaign());
        assertFalse(c.b().campaign());
        assertEquals(ReportFixture.CHAMPION, c.a().mutant().id());
        assertEquals("seed-online", c.b().mutant().id());
        assertEquals("A: default-h100", c.a().label());
        assertEquals("B: default-h100/seed-online", c.b().label());
        assertEquals(14, c.shapes().size());
        MutantRecord seed = CampaignStore.open(FOLDER).mutant("seed-online").orElseThrow();
        MutantRecord champion = CampaignStore.open(FOLDER).mutant(ReportFixture.CHAMPION).orElseThrow();
        for (int i = 0; i < 14; i++) {
            ShapeCompare s = c.shapes().get(i);
            double a = champion.result().shapes().get(i).candidate().medianMs() * 1000;
            double b = seed.result().shapes().get(i).candidate().medianMs() * 1000;
            assertEquals(a / b, s.ratio(), 1e-12, s.shape());
            assertTrue(s.ratio() < 1.05, s.shape() + ": the champion is not slower than a seed by more than noise");
        }
        assertTrue(c.diff().unified().startsWith("--- A/g0018-i3-c2.cu\n+++ B/seed-online.cu"));
        assertTrue(c.diff().added() > 0 && c.diff().removed() > 0);
        assertTrue(c.notes().isEmpty(), c.notes().toString());
        assertEquals(MeasurementMethod.NOISE_BOUND, c.repeatability(), "the page states the evaluator's own bound");
        assertEquals(25, c.a().groups().values().stream().mapToInt(Integer::intValue).sum());
        assertEquals(17, c.a().groups().get("pass"));
        assertEquals(3, c.a().groups().get("cheat caught"));
        assertEquals(c.a().progress().getLast().evaluation(), c.a().summary().evaluations(),
                "the best-score line reaches the last evaluation");
    }

    @Test
    void comparingAKernelWithItselfOrAnotherBaselineSaysSo(@TempDir Path tmp) throws IOException {
        Path other = ReportFixture.copy(tmp);
        Path yaml = other.resolve("campaign.yaml");
        Files.writeString(yaml, Files.readString(yaml).replace("baseline_name: \"block_two_pass.cu\"",
                "baseline_name: \"other.cu\""));
        CompareData c = CampaignCompare.compare(FOLDER, other, tmp);
        assertEquals(2, c.notes().size(), c.notes().toString());
        assertTrue(c.notes().get(0).contains("different baselines (block_two_pass, other)"), c.notes().get(0));
        assertTrue(c.notes().get(1).contains("same kernel"), c.notes().get(1));
        assertTrue(c.diff().unified().isEmpty());
        assertTrue(c.shapes().stream().allMatch(s -> s.ratio() == 1.0));
    }

    @Test
    void shapesOnlyOneSideHasAreKeptWithNulls() {
        MutantView a = CampaignReport.gather(CampaignStore.open(FOLDER), 1, FOLDER).mutants().get("seed-online");
        MutantView b = new MutantView("b", List.of(), 0, 0, "x", "x", "", "pass", "pass", null, 1.0, 1.0, null, null, null,
                List.of(), "", "", "", List.of(), List.of(new MutantView.ShapeRow("7x7", "pass", 1, 2.0, 0.01, 4.0,
                1.0, 2.0, 0.5, 1e-7, null)));
        List<ShapeCompare> shapes = CampaignCompare.shapes(a, b);
        assertEquals(15, shapes.size());
        assertNull(shapes.getFirst().bUs());
        assertNull(shapes.getFirst().ratio());
        assertEquals("7x7", shapes.getLast().shape());
        assertNull(shapes.getLast().aUs());
        assertEquals(1.0, shapes.getLast().copyUs());
    }
}
