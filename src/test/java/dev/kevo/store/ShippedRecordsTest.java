package dev.kevo.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kevo.TestFiles;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Sanitized;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample campaign's sanitizer record was written on an H100, under no key this host has: it counts because kevo
 * lists its digest, and only while it is byte for byte what was listed.
 */
class ShippedRecordsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Path SAMPLE = TestFiles.root().resolve("mutations/sample-h100");

    private static List<Path> shipped() throws IOException {
        try (Stream<Path> files = Files.list(SAMPLE)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".sanitized.json")).sorted().toList();
        }
    }

    @Test
    void everyShippedRecordIsListedAndCountsOnAHostWithAKeyOfItsOwn(@TempDir Path cache) throws IOException {
        RecordSeal here = RecordSeal.fromEnvironment(Map.of("KEVO_CACHE", cache.toString()));
        List<Path> records = shipped();
        assertTrue(!records.isEmpty(), "the sample ships its champion's record");
        String list = Prelude.resource(RecordSeal.class, RecordSeal.SHIPPED_LIST);
        for (Path f : records) {
            Sanitized r = JSON.readValue(f.toFile(), Sanitized.class);
            assertTrue(list.contains(RecordSeal.digest(r) + " " + TestFiles.root().relativize(f)), "listed: " + f);
            assertEquals(Optional.empty(), here.problem(r), f.toString());
        }
    }

    @Test
    void aShippedRecordEditedByOneValueNoLongerCounts(@TempDir Path cache) throws IOException {
        RecordSeal here = RecordSeal.fromEnvironment(Map.of("KEVO_CACHE", cache.toString()));
        ObjectNode edited = (ObjectNode) JSON.readTree(shipped().getFirst().toFile());
        assertEquals(Optional.empty(), here.problem(JSON.treeToValue(edited, Sanitized.class)), "as shipped, it counts");
        edited.put("seconds", edited.get("seconds").asDouble() + 1);
        Optional<String> problem = here.problem(JSON.treeToValue(edited, Sanitized.class));
        assertTrue(problem.isPresent(), "edited, it counts no more: its digest is no longer listed, and its seal was "
                + "made on another host");
    }
}
