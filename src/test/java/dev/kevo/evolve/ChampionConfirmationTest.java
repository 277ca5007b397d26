package dev.kevo.evolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoCli;
import dev.kevo.data.CampaignConfig;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Verdict;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.KernelFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Set;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every campaign, on one device or several, judges its best few again with the at-scale checks before it names a
 * champion: one that fails them is no champion, and confirmation.json says why.
 */
class ChampionConfirmationTest {

    /** One device whose at-scale checks fail the genes {@code failsAtScale} picks, naming the shape. */
    private static Judge oneDevice(IntPredicate failsAtScale) {
        CampaignTest.FakeGpu scores = new CampaignTest.FakeGpu(Integer.MAX_VALUE);
        return new Judge() {
            @Override
            public CandidateResult evaluate(KernelFile file, long inputSeed) {
                return scores.evaluate(file, inputSeed);
            }

            @Override
            public CandidateResult confirm(KernelFile file, long inputSeed) {
                if (failsAtScale.test(CampaignTest.gene(file.source()))) {
                    return CandidateResult.rejected(file.name(), null, null, Verdict.UNWRITTEN_OUTPUT,
                            "at-scale shape 16385x131073: case normal-1: 2147631105 of 2147631105 outputs never "
                                    + "written", inputSeed).toBuilder().device("0 Fake GPU").build();
                }
                return scores.confirm(file, inputSeed).toBuilder().device("0 Fake GPU")
                        .judgedElements(2_147_631_105L).build();
            }
        };
    }

    /** A campaign of three generations in {@code dir} on {@link #oneDevice}. */
    private static CampaignStore campaign(Path dir, IntPredicate failsAtScale) {
        CampaignConfig config = CampaignTest.config(3);
        CampaignStore store = CampaignTest.store(dir, config);
        CampaignTest.run(store, config, oneDevice(failsAtScale));
        return store;
    }

    private static MutantRecord best(CampaignStore store) {
        return store.mutants().stream().filter(MutantRecord::passed)
                .max(Comparator.comparingDouble(MutantRecord::fitness)).orElseThrow();
    }

    @Test
    void withOneDeviceTheChampionIsConfirmedAtScaleAndWhatItWasJudgedOnRecorded(@TempDir Path dir) throws Exception {
        CampaignStore store = campaign(dir.resolve("c"), g -> false);
        CampaignState state = store.state().orElseThrow();
        Confirmation confirmation = store.confirmation().orElseThrow();
        assertEquals(best(store).id(), state.bestId(), "one device: the best recorded, confirmed");
        assertEquals(state.bestId(), confirmation.championId());
        assertEquals(2_147_631_105L, confirmation.judgedElements());
        assertEquals(Campaign.CONTENDERS, confirmation.entries().size());
        assertTrue(Files.readString(dir.resolve("c/events.jsonl")).contains("\"judgedElements\":2147631105"));
    }

    @Test
    void aContenderThatFailsAtScaleIsNotChampionAndItsEntrySaysWhy(@TempDir Path dir) throws Exception {
        CampaignStore reference = campaign(dir.resolve("reference"), g -> false);
        int bestGene = CampaignTest.gene(reference.source(best(reference).id()));

        CampaignStore store = campaign(dir.resolve("c"), g -> g == bestGene);
        CampaignState state = store.state().orElseThrow();
        Confirmation confirmation = store.confirmation().orElseThrow();
        Confirmation.Entry failed = confirmation.entries().getFirst();
        assertEquals(best(store).id(), failed.id(), "the recorded best was a contender");
        assertEquals(Verdict.UNWRITTEN_OUTPUT, failed.confirmed().verdict());
        assertTrue(failed.confirmed().detail().startsWith("at-scale shape 16385x131073"), failed.confirmed().detail());
        assertNotEquals(failed.id(), state.bestId());
        assertEquals(confirmation.championId(), state.bestId());
        assertEquals(store.source(state.bestId()), Files.readString(dir.resolve("c/champion.cu")));
    }

    @Test
    void whenNoneOfTheBestPassesTheCampaignNamesNoChampion(@TempDir Path dir) throws Exception {
        CampaignStore store = campaign(dir.resolve("c"), g -> true);
        Confirmation confirmation = store.confirmation().orElseThrow();
        assertNull(store.state().orElseThrow().bestId());
        assertNull(confirmation.championId());
        assertTrue(confirmation.note().contains("no champion"), confirmation.note());
        long passing = store.mutants().stream().filter(MutantRecord::passed).count();
        assertEquals(Math.min(passing, (long) ChampionConfirmation.ROUNDS * Campaign.CONTENDERS),
                confirmation.entries().size(), "the next few were judged too, a few rounds at most");
        assertEquals(confirmation.entries().size(), confirmation.entries().stream().map(Confirmation.Entry::id)
                .distinct().count());
        assertFalse(Files.exists(dir.resolve("c/champion.cu")) || Files.exists(dir.resolve("c/champion.json")),
                "no champion files left behind: " + Set.of(dir.resolve("c").toFile().list()));
        String show = KevoCli.kevo("show", dir.resolve("c").toString()).out();
        assertTrue(show.contains("confirmed unwritten-output: at-scale shape 16385x131073") && show.contains(
                "so the campaign names no champion") && !show.contains("champion g"), show);
    }
}
