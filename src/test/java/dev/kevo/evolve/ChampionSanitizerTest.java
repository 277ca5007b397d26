package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.SourceHash;
import dev.kevo.task.KernelFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** No champion is named unsanitized: the campaign loop with a judge whose sanitizer finds what it is told to. */
class ChampionSanitizerTest {

    /** CampaignTest's fake GPU, with a sanitizer that finds a race in the genes it is given. */
    static class Sanitizing implements Judge {
        final CampaignTest.FakeGpu gpu = new CampaignTest.FakeGpu(Integer.MAX_VALUE);
        final Set<Integer> racy;
        final List<Integer> sanitized = new ArrayList<>();

        Sanitizing(Set<Integer> racy) {
            this.racy = racy;
        }

        @Override
        public CandidateResult evaluate(KernelFile file, long inputSeed) {
            return gpu.evaluate(file, inputSeed);
        }

        @Override
        public Optional<Sanitized> sanitize(KernelFile file, CandidateResult judged) {
            int gene = CampaignTest.gene(file.source());
            sanitized.add(gene);
            Verdict verdict = racy.contains(gene) ? Verdict.DATA_RACE : Verdict.PASS;
            return Optional.of(Sanitized.builder(verdict).detail(verdict.passed() ? null
                    : "racecheck: 2 hazards in k (shared memory, a read and a write no barrier orders)")
                    .tools(List.of("memcheck", "racecheck")).seconds(3).build());
        }
    }

    private static CampaignState run(CampaignStore store, CampaignConfig config, Judge judge) {
        return CampaignTest.run(store, config, judge);
    }

    @Test
    void aCleanChampionIsRecordedAndKeepsItsTitle(@TempDir Path dir) throws Exception {
        CampaignConfig config = CampaignTest.config(3);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        Sanitizing judge = new Sanitizing(Set.of());
        CampaignState state = run(store, config, judge);
        String champion = state.bestId();
        assertEquals(List.of(CampaignTest.gene(store.source(champion))), judge.sanitized, "the champion alone");
        Sanitized record = store.sanitized(champion).orElseThrow();
        assertTrue(record.passed());
        assertEquals(SourceHash.of(store.source(champion)), record.sourceHash(), "the record covers its source");
        assertTrue(Files.readString(dir.resolve("c/events.jsonl")).contains("\"sanitized\""));
        assertEquals(store.mutants().size(), store.mutants().stream().map(MutantRecord::id).distinct().count(),
                "a record beside a mutant is no mutant");
    }

    @Test
    void aChampionWithARaceGivesItsTitleToTheNextBestWithout(@TempDir Path dir) throws Exception {
        CampaignConfig config = CampaignTest.config(3);
        CampaignStore reference = CampaignTest.store(dir.resolve("reference"), config);
        String best = run(reference, config, new CampaignTest.FakeGpu(Integer.MAX_VALUE)).bestId();
        int racy = CampaignTest.gene(reference.source(best));

        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        Sanitizing judge = new Sanitizing(Set.of(racy));
        CampaignState state = run(store, config, judge);
        assertNotEquals(racy, CampaignTest.gene(store.source(state.bestId())), "the racy one is not champion");
        assertEquals(Verdict.DATA_RACE, store.sanitized(best).orElseThrow().verdict());
        assertTrue(store.sanitized(state.bestId()).orElseThrow().passed());
        assertEquals(state.bestId(), store.state().orElseThrow().bestId(), "saved");
        Confirmation confirmation = store.confirmation().orElseThrow();
        assertEquals(state.bestId(), confirmation.championId(), "confirmation.json names the same champion");
        assertTrue(confirmation.note().contains("compute-sanitizer found something in " + best + " (data-race)"),
                confirmation.note());
        assertEquals(store.source(state.bestId()), Files.readString(dir.resolve("c/champion.cu")));
        assertTrue(judge.sanitized.size() >= 2 && judge.sanitized.getFirst() == racy, judge.sanitized.toString());

        // Resumed once finished, it sanitizes nothing again: the records are read back.
        Sanitizing again = new Sanitizing(Set.of(racy));
        assertEquals(state.bestId(), run(CampaignStore.open(dir.resolve("c")), config, again).bestId());
        assertEquals(List.of(), again.sanitized);
    }

    @Test
    void aSanitizerThatCannotRunLeavesTheChampionUnsanitizedAndSaysWhy(@TempDir Path dir) throws Exception {
        CampaignConfig config = CampaignTest.config(2);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        Judge broken = new Sanitizing(Set.of()) {
            @Override
            public Optional<Sanitized> sanitize(KernelFile file, CandidateResult judged) {
                throw KevoException.environment("no compute-sanitizer found (looked in /usr/local/cuda/bin)");
            }
        };
        CampaignState state = run(store, config, broken);
        assertTrue(store.sanitized(state.bestId()).isEmpty());
        String events = Files.readString(dir.resolve("c/events.jsonl"));
        assertTrue(events.contains("\"unsanitized\"") && events.contains("no compute-sanitizer found"), events);
    }

    @Test
    void aJudgeWithoutASanitizerWritesNoRecord(@TempDir Path dir) throws Exception {
        CampaignConfig config = CampaignTest.config(2);
        CampaignStore store = CampaignTest.store(dir.resolve("c"), config);
        run(store, config, new CampaignTest.FakeGpu(Integer.MAX_VALUE));
        try (var files = Files.list(dir.resolve("c"))) {
            assertTrue(files.noneMatch(f -> f.toString().endsWith(".sanitized.json")));
        }
    }
}
