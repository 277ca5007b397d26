package dev.kevo.export;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.KevoCli;
import dev.kevo.SanitizerRecords;
import dev.kevo.TestFiles;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.EvalRecord;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.SourceHash;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How large a shape an export accepts: 2^31-1 elements unless a record says kevo judged the kernel further (champion
 * confirmation, or a {@code kevo eval --at-scale} record of the same source), and then exactly that far.
 */
class ExportSizeTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path ONLINE = TestFiles.root().resolve("seeds/online.cu");
    private static final long AT_SCALE = 2_147_631_105L;

    private static JsonNode provenance(Path out) throws IOException {
        return JSON.readTree(out.resolve(ExportPackage.PROVENANCE).toFile());
    }

    /** The limit as the launcher and the torch binding hold it. */
    private static void assertLimit(Path out, long elements) throws IOException {
        assertEquals(elements, provenance(out).at("/size/maxElements").asLong());
        assertTrue(Files.readString(out.resolve("kevo_softmax.cu")).contains("#define KEVO_SOFTMAX_MAX_ELEMENTS "
                + elements + "LL"), "the launcher refuses past it");
        assertTrue(Files.readString(out.resolve("kevo_softmax_torch.cpp")).contains("max_elements = " + elements
                + "LL"), "the torch binding refuses past it");
    }

    private static Path evalRecord(Path dir, String source, Verdict verdict, Long judged) throws IOException {
        CandidateResult result = CandidateResult.builder("online.cu", verdict, 3).sourceHash(SourceHash.of(source))
                .judgedElements(judged).build();
        Path file = dir.resolve("eval-" + verdict.id() + "-" + judged + ".json");
        JSON.writeValue(file.toFile(), EvalRecord.builder().kevoVersion("test").results(List.of(result)).build());
        return file;
    }

    /** A copy of seeds/online.cu in {@code tmp} with a clean sanitizer record: what export asks for first. */
    private static Path seed(Path tmp) {
        return SanitizerRecords.cleanCopy(ONLINE, tmp);
    }

    @Test
    void aFileNoRecordJudgedAtScaleIsRefusedPast2To31(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("pkg");
        Path seed = seed(tmp);
        KevoCli.Outcome r = kevo("export", seed.toString(), "--to", "torch", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertLimit(out, Integer.MAX_VALUE);
        assertTrue(provenance(out).at("/size/why").asText().startsWith("not judged at scale"));
        assertTrue(Files.readString(out.resolve("README.md")).contains("shapes of up to 2,147,483,647 elements: not "
                + "judged at scale"));
        assertTrue(r.out().contains("shapes of up to 2,147,483,647 elements"), r.out());
    }

    @Test
    void anEvalRecordAtScaleOfTheSameSourceRaisesTheLimitToWhatItJudged(@TempDir Path tmp) throws Exception {
        Path seed = seed(tmp);
        String source = Files.readString(seed);
        Path out = tmp.resolve("pkg");
        Path record = evalRecord(tmp, source, Verdict.PASS, AT_SCALE);
        KevoCli.Outcome r = kevo("export", seed.toString(), "--to", "torch", "--out", out.toString(), "--eval-json",
                record.toString());
        assertEquals(0, r.code(), r.err());
        assertLimit(out, AT_SCALE);
        assertEquals(AT_SCALE, provenance(out).at("/size/judgedElements").asLong());
        assertTrue(provenance(out).at("/size/why").asText().contains("judged at scale")
                && provenance(out).at("/size/why").asText().contains(record.toString()), provenance(out).toString());

        Path notAtScale = tmp.resolve("small");
        assertEquals(0, kevo("export", seed.toString(), "--to", "torch", "--out", notAtScale.toString(),
                "--eval-json", evalRecord(tmp, source, Verdict.PASS, 262_668_288L).toString()).code());
        assertLimit(notAtScale, Integer.MAX_VALUE);
    }

    @Test
    void anEvalRecordOfAnotherSourceOrAFailureIsOneLineAndExitTwo(@TempDir Path tmp) throws Exception {
        Path seed = seed(tmp);
        String source = Files.readString(seed);
        for (Path record : List.of(evalRecord(tmp, source + "\n// edited\n", Verdict.PASS, AT_SCALE),
                evalRecord(tmp, source, Verdict.UNWRITTEN_OUTPUT, null))) {
            KevoCli.Outcome r = kevo("export", seed.toString(), "--out", tmp.resolve("pkg").toString(),
                    "--eval-json", record.toString());
            assertEquals(2, r.code(), r.err());
            assertEquals(1, r.err().strip().lines().count(), r.err());
            assertTrue(r.err().contains("no passing result of this source"), r.err());
            assertFalse(Files.exists(tmp.resolve("pkg")));
        }
    }

    /** A copy of the sample campaign whose confirmation judged {@code id} with {@code confirmed}. */
    private static Path confirmed(Path tmp, String id, CandidateResult confirmed) throws IOException {
        Path campaign = tmp.resolve("campaign");
        Path from = TestFiles.root().resolve("mutations/default-h100");
        Files.createDirectories(campaign);
        try (Stream<Path> files = Files.list(from)) {
            for (Path f : files.toList()) {
                Files.copy(f, campaign.resolve(f.getFileName()));
            }
        }
        Confirmation confirmation = Confirmation.of(List.of(new Confirmation.Entry(id, "1 GPU", 4.0, confirmed)));
        CampaignStore.open(campaign).saveConfirmation(confirmation);
        SanitizerRecords.clean(campaign.resolve(id + ".cu"));
        return campaign;
    }

    @Test
    void aChampionConfirmedAtScaleIsAcceptedAsFarAsItWasJudged(@TempDir Path tmp) throws Exception {
        String best = JSON.readTree(TestFiles.root().resolve("mutations/default-h100/state.json").toFile())
                .get("bestId").asText();
        MutantRecord record = CampaignStore.open(TestFiles.root().resolve("mutations/default-h100")).mutant(best)
                .orElseThrow();
        Path campaign = confirmed(tmp, best, record.result().toBuilder().device("0 GPU").judgedElements(AT_SCALE)
                .build());
        Path out = tmp.resolve("pkg");
        KevoCli.Outcome r = kevo("export", campaign.toString(), "--to", "torch", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertLimit(out, AT_SCALE);
        assertTrue(provenance(out).at("/size/why").asText().contains("champion confirmation on 0 GPU"),
                provenance(out).toString());
    }

    @Test
    void aMutantThatFailedConfirmationIsRefusedWithWhy(@TempDir Path tmp) throws Exception {
        String best = JSON.readTree(TestFiles.root().resolve("mutations/default-h100/state.json").toFile())
                .get("bestId").asText();
        Path campaign = confirmed(tmp, best, CandidateResult.rejected(best + ".cu", null, null,
                Verdict.UNWRITTEN_OUTPUT, "at-scale shape 16385x131073: case normal-1: all outputs never written", 1));
        KevoCli.Outcome r = kevo("export", campaign.resolve(best).toString(), "--out", tmp.resolve("pkg").toString());
        assertEquals(1, r.code(), r.err());
        assertTrue(r.err().contains(best + " failed champion confirmation (unwritten-output: at-scale shape "
                + "16385x131073"), r.err());
        assertFalse(Files.exists(tmp.resolve("pkg")));
    }

    @Test
    void anEvalRecordOfASanitizerPassStandsForTheRecordBesideTheFile(@TempDir Path tmp) throws Exception {
        Path file = Files.copy(ONLINE, tmp.resolve("online.cu"));
        String source = Files.readString(file);
        CandidateResult result = CandidateResult.builder("online.cu", Verdict.PASS, 3).sourceHash(SourceHash.of(source))
                .judgedElements(262_668_288L).sanitized(SanitizerRecords.of(source, Verdict.PASS, null)).build();
        Path record = tmp.resolve("eval-sanitized.json");
        JSON.writeValue(record.toFile(), EvalRecord.builder().kevoVersion("test").results(List.of(result)).build());
        Path out = tmp.resolve("pkg");
        assertEquals(2, kevo("export", file.toString(), "--out", out.toString()).code(), "no record beside it");
        KevoCli.Outcome r = kevo("export", file.toString(), "--out", out.toString(), "--eval-json", record.toString());
        assertEquals(0, r.code(), r.err());
        assertEquals("pass", provenance(out).at("/sanitized/verdict").asText());
        assertEquals(SourceHash.of(source), provenance(out).at("/sanitized/sourceHash").asText());
    }
}
