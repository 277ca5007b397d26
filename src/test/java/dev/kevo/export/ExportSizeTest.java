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
import dev.kevo.data.JudgedBuild;
import dev.kevo.data.PlanJudgement;
import dev.kevo.data.Precision;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Confirmation;
import dev.kevo.data.EvalRecord;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.task.ContractParser;
import dev.kevo.store.SourceHash;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How large a shape an export accepts: per plan, as far as the record that judged it says (champion confirmation, a
 * {@code kevo eval --at-scale} record of the same source, else the evaluation its sanitizer pass followed), and no
 * further.
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

    /** Every plan of {@code kernel} judged in full on up to {@code elements} elements, at 132 SMs. */
    static List<PlanJudgement> plansAt(Path kernel, long elements) {
        int plans = ContractParser.read(kernel).plans().size();
        return java.util.stream.IntStream.rangeClosed(1, plans).mapToObj(p -> new PlanJudgement(p, 4, "32x128", true,
                "1x" + elements, elements, List.of(132), List.of(), List.of())).toList();
    }

    /** The build the record beside {@code kernel} names: what an evaluation of the same compile judged. */
    private static JudgedBuild build(Path kernel) {
        return SanitizedRecords.read(kernel).orElseThrow().build();
    }

    private static Path evalRecord(Path dir, String source, Verdict verdict, Long judged) throws IOException {
        Path kernel = dir.resolve("online.cu");
        CandidateResult result = CandidateResult.builder("online.cu", verdict, 3).sourceHash(SourceHash.of(source))
                .judgedElements(judged).plans(judged == null ? null : plansAt(kernel, judged))
                .build(Files.exists(SanitizedRecords.beside(kernel)) ? build(kernel) : null).build();
        Path file = dir.resolve("eval-" + verdict.id() + "-" + judged + ".json");
        JSON.writeValue(file.toFile(), EvalRecord.builder().kevoVersion("test").results(List.of(result)).build());
        return file;
    }

    /** A copy of seeds/online.cu in {@code tmp} with a clean sanitizer record: what export asks for first. */
    private static Path seed(Path tmp) {
        return SanitizerRecords.cleanCopy(ONLINE, tmp);
    }

    @Test
    void aFileIsAcceptedPerPlanAsFarAsTheEvaluationItsSanitizerPassFollowedJudgedIt(@TempDir Path tmp)
            throws Exception {
        Path out = tmp.resolve("pkg");
        Path seed = seed(tmp);
        KevoCli.Outcome r = kevo("export", seed.toString(), "--to", "torch", "--out", out.toString());
        assertEquals(0, r.code(), r.err());
        assertLimit(out, Integer.MAX_VALUE);
        assertTrue(provenance(out).at("/size/why").asText().startsWith("each plan up to what the evaluation its "
                + "compute-sanitizer pass followed judged it on"), provenance(out).at("/size/why").asText());
        assertTrue(Files.readString(out.resolve("README.md")).contains("| 1 | yes | 2,147,483,647 elements | 132 |"),
                Files.readString(out.resolve("README.md")));
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
        assertTrue(provenance(out).at("/size/why").asText().contains(record.toString()), provenance(out).toString());

        Path notAtScale = tmp.resolve("small");
        assertEquals(0, kevo("export", seed.toString(), "--to", "torch", "--out", notAtScale.toString(),
                "--eval-json", evalRecord(tmp, source, Verdict.PASS, 262_668_288L).toString()).code());
        assertLimit(notAtScale, 262_668_288L);  // no further than judged, where once 2^31-1 was taken on trust
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
        if (confirmed.passed()) {
            // the confirmation judged the build the sanitizer ran
            Confirmation rebuilt = Confirmation.of(List.of(new Confirmation.Entry(id, "1 GPU", 4.0, confirmed
                    .toBuilder().build(build(campaign.resolve(id + ".cu"))).build())));
            CampaignStore.open(campaign).saveConfirmation(rebuilt);
        }
        return campaign;
    }

    @Test
    void aChampionConfirmedAtScaleIsAcceptedAsFarAsItWasJudged(@TempDir Path tmp) throws Exception {
        String best = JSON.readTree(TestFiles.root().resolve("mutations/default-h100/state.json").toFile())
                .get("bestId").asText();
        MutantRecord record = CampaignStore.open(TestFiles.root().resolve("mutations/default-h100")).mutant(best)
                .orElseThrow();
        Path source = TestFiles.root().resolve("mutations/default-h100/" + best + ".cu");
        Path campaign = confirmed(tmp, best, record.result().toBuilder().device("0 GPU").judgedElements(AT_SCALE)
                .plans(plansAt(source, AT_SCALE)).build());
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
        Sanitized pass = SanitizerRecords.judged(file, Verdict.PASS, null, Precision.FP32);
        CandidateResult result = CandidateResult.builder("online.cu", Verdict.PASS, 3).sourceHash(SourceHash.of(source))
                .judgedElements(262_668_288L).plans(plansAt(file, 262_668_288L)).build(pass.build())
                .sanitized(pass).build();
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
