package dev.kevo.cli;

import static dev.kevo.KevoCli.kevo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.KevoCli;
import dev.kevo.SanitizerTest;
import dev.kevo.TestFiles;
import dev.kevo.data.Verdict;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kevo eval --sanitize} with the real compute-sanitizer on a GPU: every corpus file judged with
 * {@code --sanitize} gets its expected verdict (the racy one after passing the evaluation), an honest seed is clean
 * under all four tools, and each outcome is recorded beside its file. Copies are judged, so that the records land
 * in a temporary folder.
 */
@SanitizerTest
class SanitizerGpuTest {

    @Test
    void theRacyAndTheOverreadingFilesAreFoundAndAnHonestSeedIsClean(@TempDir Path tmp) throws IOException {
        List<Path> hostile = new ArrayList<>();
        for (Path p : Corpus.files()) {
            if (Corpus.evalOptions(Files.readString(p)).contains("--sanitize")) {
                hostile.add(p);
            }
        }
        assertTrue(hostile.stream().anyMatch(p -> p.endsWith("smem_race.cu")), hostile.toString());
        List<String> args = new ArrayList<>(List.of("eval", "--sanitize", "--suite", "quick", "--baseline",
                "block_two_pass", "--input-seed", "7", "--json", tmp.resolve("out.json").toString()));
        Path seed = Files.copy(TestFiles.root().resolve("seeds/online.cu"), tmp.resolve("online.cu"));
        args.add(seed.toString());
        List<Path> copies = new ArrayList<>();
        for (Path p : hostile) {
            copies.add(Files.copy(p, tmp.resolve(p.getFileName())));
        }
        copies.forEach(c -> args.add(c.toString()));
        KevoCli.Outcome run = kevo(args.toArray(String[]::new));
        assertEquals(1, run.code(), run.out() + run.err());
        JsonNode results = new ObjectMapper().readTree(tmp.resolve("out.json").toFile()).get("results");

        JsonNode honest = results.get(0);
        assertEquals("pass", honest.get("verdict").asText(), honest.toString());
        assertEquals("pass", honest.at("/sanitized/verdict").asText(), honest.toString());
        assertEquals(4, honest.at("/sanitized/tools").size(), honest.toString());
        assertTrue(SanitizedRecords.covering(seed, Files.readString(seed)).orElseThrow().passed());

        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < copies.size(); i++) {
            JsonNode r = results.get(1 + i);
            KernelFile file = ContractParser.read(copies.get(i));
            Verdict expected = Corpus.expected(file.source());
            if (!expected.id().equals(r.get("verdict").asText())) {
                wrong.add(file.name() + ": expected " + expected.id() + ", got " + r.get("verdict").asText() + " ("
                        + r.path("detail").asText() + ")");
            }
            if (SanitizedRecords.covering(copies.get(i), file.source()).isEmpty()) {
                wrong.add(file.name() + ": no record beside it");
            }
            System.err.printf("sanitizer: %s %s in %.1f s%n", file.name(), r.at("/sanitized/verdict").asText(),
                    r.at("/sanitized/seconds").asDouble());
        }
        assertEquals(List.of(), wrong);
        JsonNode race = results.get(1 + hostile.indexOf(hostile.stream().filter(p -> p.endsWith("smem_race.cu"))
                .findFirst().orElseThrow()));
        String detail = race.get("detail").asText();
        assertTrue(detail.startsWith("racecheck: ") && detail.contains("softmax_shared_scratch"), detail);
        assertFalse(detail.contains("the evaluation also found"), "the evaluation alone passed it: " + detail);
    }
}
