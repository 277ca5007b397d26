package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.config.KevoHome;
import dev.kevo.store.CampaignStore;
import dev.kevo.worker.ComputeSanitizer;
import dev.kevo.worker.NsightCompute;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A campaign does not fail for lack of an optional tool, says so once its workers are up, and records it. */
class CampaignWiringTest {

    private static final Supplier<ComputeSanitizer> NONE_FOUND = () -> {
        throw KevoException.environment("no compute-sanitizer found (" + ComputeSanitizer.INSTALL_HINT
                + "); looked in /nowhere/compute-sanitizer");
    };
    private static final Supplier<Optional<NsightCompute>> NO_NCU = Optional::empty;

    /** A new campaign whose eval config says {@code sanitize: WHEN}, not yet started (no folder). */
    private static CampaignStart fresh(Path dir, String when) throws IOException {
        Path eval = Files.writeString(dir.resolve("eval.yaml"), "sanitize: " + when + "\n");
        Path config = Files.writeString(dir.resolve("c.yaml"), "name: wired\noutput: " + dir.resolve("out")
                + "\nbaseline: block_two_pass\neval_config: " + eval + "\n");
        return CampaignStart.fresh(config, new KevoHome(TestFiles.root()), "test", c -> null, Map.of(), note -> { });
    }

    private static CampaignWiring wiring(CampaignStart start, boolean onSlurm, Supplier<ComputeSanitizer> sanitizer) {
        return CampaignWiring.of(start, start.baseline(new KevoHome(TestFiles.root()), Map.of()), onSlurm, sanitizer,
                NO_NCU);
    }

    private static String events(CampaignStore store) throws IOException {
        return Files.readString(store.dir().resolve(CampaignStore.EVENTS));
    }

    @Test
    void withoutComputeSanitizerTheCampaignRunsSaysOnceWhatThatMeansForExportAndRecordsIt(@TempDir Path dir)
            throws IOException {
        CampaignWiring wiring = wiring(fresh(dir, "champion"), false, NONE_FOUND);
        assertTrue(wiring.tools().sanitizer().isEmpty());
        assertFalse(Files.exists(dir.resolve("out")), "nothing made before the workers are up");
        List<String> said = new ArrayList<>();
        CampaignStore store = wiring.ready(said::add);
        assertEquals(1, said.size(), said::toString);
        String line = said.getFirst();
        assertFalse(line.contains("\n"), line);
        assertTrue(line.contains("no compute-sanitizer found") && line.contains("will not be sanitized")
                && line.contains("kevo export refuses it") && line.contains("kevo eval --sanitize"), line);
        String events = events(store);
        assertTrue(events.contains("\"unsanitized\"") && events.contains("no compute-sanitizer found"), events);
    }

    @Test
    void withComputeSanitizerNothingIsSaidOrRecorded(@TempDir Path dir) throws IOException {
        ComputeSanitizer found = new ComputeSanitizer(Path.of("/opt/cuda/bin/compute-sanitizer"));
        CampaignWiring wiring = wiring(fresh(dir, "champion"), false, () -> found);
        assertEquals(Optional.of(found), wiring.tools().sanitizer());
        List<String> said = new ArrayList<>();
        CampaignStore store = wiring.ready(said::add);
        assertEquals(List.of(), said);
        assertFalse(Files.exists(store.dir().resolve(CampaignStore.EVENTS))
                && events(store).contains("unsanitized"));
    }

    /** Sanitizing every candidate needs the tool, but a host without a GPU hears about the GPU first. */
    @Test
    void sanitizingEveryCandidateWithoutTheToolFailsOnlyOnceTheWorkersAreUp(@TempDir Path dir) throws IOException {
        CampaignWiring wiring = wiring(fresh(dir, "every"), false, NONE_FOUND);
        List<String> said = new ArrayList<>();
        KevoException e = assertThrows(KevoException.class, () -> wiring.ready(said::add));
        assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
        assertTrue(e.getMessage().contains("no compute-sanitizer found")
                && e.getMessage().contains("sanitize: champion"), e.getMessage());
        assertFalse(Files.exists(dir.resolve("out")), "no campaign folder");
    }

    @Test
    void aVariableNamingNoSanitizerIsBadInputEvenForTheChampion(@TempDir Path dir) throws IOException {
        CampaignWiring wiring = wiring(fresh(dir, "champion"), false, () -> {
            throw KevoException.input(ComputeSanitizer.VARIABLE + " /nowhere: no such executable");
        });
        assertEquals(KevoException.Kind.INPUT, assertThrows(KevoException.class, () -> wiring.ready(s -> { })).kind());
    }

    @Test
    void onSlurmTheChampionIsNotSanitizedWhichIsSaidAndRecordedAndEveryIsRefused(@TempDir Path dir)
            throws IOException {
        CampaignWiring wiring = wiring(fresh(dir, "champion"), true, () -> {
            throw new AssertionError("Slurm steps run nothing under a tool: none is looked for");
        });
        assertTrue(wiring.tools().sanitizer().isEmpty());
        List<String> said = new ArrayList<>();
        CampaignStore store = wiring.ready(said::add);
        assertEquals(1, said.size(), said::toString);
        assertTrue(said.getFirst().contains("--workers slurm") && said.getFirst().contains("kevo eval --sanitize"),
                said.getFirst());
        assertTrue(events(store).contains("unsanitized"));
        Path other = Files.createDirectories(dir.resolve("every"));
        assertEquals(KevoException.Kind.INPUT, assertThrows(KevoException.class,
                () -> wiring(fresh(other, "every"), true, NONE_FOUND)).kind());
    }

    @Test
    void offSaysNothing(@TempDir Path dir) throws IOException {
        List<String> said = new ArrayList<>();
        wiring(fresh(dir, "off"), false, NONE_FOUND).ready(said::add);
        assertEquals(List.of(), said);
    }
}
