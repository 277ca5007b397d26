package dev.kevo.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kevo.TestFiles;
import dev.kevo.data.CampaignState;
import dev.kevo.data.Confirmation;
import dev.kevo.data.MutantRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The shipped sample (mutations/sample-h100, pruned by tools/sample-campaign.py) is a campaign folder as kevo writes
 * one: nothing it names is missing, its champion is the confirmed and sanitized one, and it stays small.
 */
class SampleCampaignTest {

    private static final Path SAMPLE = TestFiles.root().resolve("mutations/sample-h100");

    @Test
    void everyMutantItNamesIsKeptAndItsChampionIsConfirmedAndSanitized() throws IOException {
        CampaignStore store = CampaignStore.open(SAMPLE);
        CampaignState state = store.state().orElseThrow();
        Set<String> kept = store.mutants().stream().map(MutantRecord::id).collect(Collectors.toSet());
        for (MutantRecord m : store.mutants()) {
            List<String> needs = new ArrayList<>(m.parents());
            if (m.cachedFrom() != null) {
                needs.add(m.cachedFrom());
            }
            assertTrue(kept.containsAll(needs), m.id() + " needs " + needs);
        }
        state.islands().forEach(island -> assertTrue(kept.containsAll(island), island.toString()));
        Confirmation confirmation = store.confirmation().orElseThrow();
        confirmation.entries().forEach(e -> assertTrue(kept.contains(e.id()), e.id()));
        String champion = state.bestId();
        assertEquals(champion, confirmation.championId());
        assertEquals(champion, store.mutant(CampaignStore.CHAMPION).orElseThrow().id());
        assertArrayEquals(Files.readAllBytes(SAMPLE.resolve(champion + ".cu")),
                Files.readAllBytes(SAMPLE.resolve("champion.cu")));
        assertTrue(store.sanitized(champion).orElseThrow().passed());
        assertTrue(kept.containsAll(List.of("seed-block_stats", "seed-cluster_rows", "seed-coalesced",
                "seed-multipass", "seed-online", "seed-register_rows", "seed-warp_shuffle")), kept.toString());
    }

    /** events.jsonl is the recorded log cut to what is kept: every mutant an event names is there, in time order. */
    @Test
    void itsEventsNameOnlyKeptMutantsInOrder() throws IOException {
        Set<String> kept = CampaignStore.open(SAMPLE).mutants().stream().map(MutantRecord::id)
                .collect(Collectors.toSet());
        ObjectMapper json = new ObjectMapper();
        String last = "";
        List<String> types = new ArrayList<>();
        for (String line : Files.readAllLines(SAMPLE.resolve(CampaignStore.EVENTS))) {
            JsonNode e = json.readTree(line);
            assertTrue(e.get("time").asText().compareTo(last) >= 0, line);
            last = e.get("time").asText();
            types.add(e.get("type").asText());
            if (e.has("id")) {
                assertTrue(kept.contains(e.get("id").asText()), line);
            }
            e.path("sources").fieldNames().forEachRemaining(f -> assertTrue(kept.contains(f.replace(".cu", "")), line));
        }
        assertEquals(kept.size(), types.stream().filter("mutant"::equals).count());
        assertEquals(List.of("started", "confirmed", "sanitized", "finished"), types.stream()
                .filter(t -> List.of("started", "confirmed", "sanitized", "finished").contains(t)).toList());
    }

    @Test
    void itStaysUnderTwoMegabytes() throws IOException {
        // About 20 genome-rendered mutants of 55 KB each, the confirmation, and the judged cubin an export ships.
        try (Stream<Path> files = Files.list(SAMPLE)) {
            long bytes = files.filter(f -> !f.getFileName().toString().equals("report.html"))
                    .mapToLong(f -> f.toFile().length()).sum();
            assertTrue(bytes < 2_000_000, bytes + " bytes");
        }
    }
}
