package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.config.KevoHome;
import dev.kevo.data.Precision;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CampaignStartTest {

    /** A campaign folder copied to a machine without kevo's seeds/ resumes from the seeds it saved. */
    @Test
    void aCopiedCampaignResumesFromItsSavedSeeds(@TempDir Path dir) throws IOException {
        Path copy = Files.createDirectories(dir.resolve("campaign"));
        try (Stream<Path> files = Files.list(TestFiles.root().resolve("mutations/default-h100"))) {
            for (Path file : files.toList()) {
                Files.copy(file, copy.resolve(file.getFileName()));
            }
        }
        CampaignStart start = CampaignStart.resume(copy, new KevoHome(dir), config -> null);
        assertTrue(start.resumed());
        assertEquals(copy, start.dir());
        try (Stream<Path> saved = Files.list(copy)) {
            assertEquals(saved.filter(p -> p.getFileName().toString().matches("seed-.*\\.cu")).count(),
                    start.seeds().size());
        }
        assertTrue(start.seeds().stream().map(KernelFile::path).allMatch(p -> p.startsWith(copy)),
                start.seeds()::toString);
    }

    /** A new campaign is checked whole before its folder is named on disk: a missing seeds folder makes nothing. */
    @Test
    void aFreshCampaignWithoutSeedsMakesNoFolder(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("out");
        Path config = Files.writeString(dir.resolve("c.yaml"), "name: noseeds\noutput: " + out + "\nseeds: "
                + dir.resolve("nowhere") + "\nbaseline: block_two_pass\n");
        KevoException e = assertThrows(KevoException.class, () -> CampaignStart.fresh(config,
                new KevoHome(TestFiles.root()), "test", c -> null, Map.of(), note -> { }));
        assertTrue(e.getMessage().contains("no seeds folder"), e.getMessage());
        assertFalse(Files.exists(out));
    }

    /**
     * kevo's seeds of each operator apart: a softmax campaign reads seeds/ (not seeds/log_softmax/, nor a log_softmax
     * file placed beside its own, which is left out), and a log_softmax campaign reads seeds/log_softmax/.
     */
    @Test
    void aCampaignReadsTheSeedsOfItsOwnOperatorOnly(@TempDir Path dir) throws IOException {
        Path seeds = TestFiles.root().resolve("seeds");
        Task softmax = Task.softmax(Precision.FP32);
        Task logSoftmax = new Task(Operators.LOG_SOFTMAX, Precision.BF16);
        assertTrue(CampaignStart.readSeeds(seeds, softmax).stream().allMatch(f -> f.op() == Operators.SOFTMAX));
        List<KernelFile> logSeeds = CampaignStart.readSeeds(seeds.resolve("log_softmax"), logSoftmax);
        assertTrue(logSeeds.stream().map(KernelFile::name).toList().contains("online.cu"), logSeeds.toString());
        assertTrue(logSeeds.stream().allMatch(f -> f.op() == Operators.LOG_SOFTMAX));

        Path mixed = Files.createDirectories(dir.resolve("mixed"));
        Files.copy(seeds.resolve("online.cu"), mixed.resolve("a_softmax.cu"));
        Files.copy(seeds.resolve("log_softmax/online.cu"), mixed.resolve("b_log_softmax.cu"));
        assertEquals(List.of("a_softmax.cu"), CampaignStart.readSeeds(mixed, softmax).stream()
                .map(KernelFile::name).toList());
        assertEquals(List.of("b_log_softmax.cu"), CampaignStart.readSeeds(mixed, logSoftmax).stream()
                .map(KernelFile::name).toList());

        KevoException none = assertThrows(KevoException.class, () -> CampaignStart.readSeeds(seeds, logSoftmax));
        assertTrue(none.getMessage().contains("no seed implements log_softmax") && none.getMessage()
                .contains("seeds/OP/"), none.getMessage());
        assertFalse(none.getMessage().contains("\n"), none.getMessage());
    }

    /**
     * config/masked_softmax.yaml starts a masked_softmax campaign on the attention suite (every shape in every mask
     * kind) from seeds/masked_softmax/, over its own baseline (no vendor has the operator), with the built-in agent
     * free to start genomes of its own (it renders them as masked_softmax kernels).
     */
    @Test
    void theMaskedSoftmaxCampaignStartsOnTheAttentionSuiteFromItsSeeds(@TempDir Path dir) throws IOException {
        Path config = Files.writeString(dir.resolve("masked.yaml"), Files.readString(TestFiles.root()
                .resolve("config/masked_softmax.yaml")) + "output: " + dir.resolve("out") + "\n");
        List<String> notes = new java.util.ArrayList<>();
        CampaignStart start = CampaignStart.fresh(config, new KevoHome(TestFiles.root()), "test", c -> null, Map.of(),
                notes::add);
        assertEquals("masked_softmax", start.frozen().eval().op());
        assertEquals("attention", start.frozen().suiteName());
        assertTrue(start.frozen().shapes().contains("1x32x4096x4096:causal"), start.frozen().shapes()::toString);
        assertEquals(List.of("online.cu", "split_rows.cu", "warp_rows.cu"),
                start.seeds().stream().map(KernelFile::name).toList());
        assertTrue(start.seeds().stream().allMatch(f -> f.op() == Operators.MASKED_SOFTMAX));
        assertTrue(start.frozen().config().freshGenomes() == null || start.frozen().config().freshGenomes(),
                "fresh genomes");
        assertTrue(start.baselineSource().contains("masked_softmax_block_two_pass"), "its own baseline");
    }
}
