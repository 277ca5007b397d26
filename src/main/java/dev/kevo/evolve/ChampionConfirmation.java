package dev.kevo.evolve;

import dev.kevo.data.CampaignState;
import dev.kevo.data.Confirmation;
import dev.kevo.data.MutantRecord;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * With several devices, the recorded scores of the best few were each measured on whichever device was free:
 * before the campaign names its champion, they are judged again one after another on one device, and the best of
 * those is the champion. Their results are kept in confirmation.json. Runs once, after the last generation, on
 * the campaign's own thread.
 */
final class ChampionConfirmation {
    private final Judge evaluations;
    private final CampaignStore store;
    private final Recorder recorder;
    private final int contenders;

    ChampionConfirmation(Judge evaluations, CampaignStore store, Recorder recorder, int contenders) {
        this.evaluations = evaluations;
        this.store = store;
        this.recorder = recorder;
        this.contenders = contenders;
    }

    /** The state with the confirmed champion (saved), or {@code state} itself when there is nothing to confirm. */
    CampaignState confirm(CampaignState state) {
        if (!evaluations.confirms() || recorder.champion() == null) {
            return state;
        }
        List<MutantRecord> top = recorder.best(Integer.MAX_VALUE).stream().limit(contenders).toList();
        List<Confirmation.Entry> entries = new ArrayList<>();
        for (MutantRecord m : top) {
            KernelFile file = ContractParser.parse(m.id() + ".cu", store.sourcePath(m.id()), store.source(m.id()));
            entries.add(new Confirmation.Entry(m.id(), m.result().device(), m.fitness(),
                    evaluations.confirm(file, m.result().inputSeed())));
        }
        Confirmation confirmation = Confirmation.of(entries);
        store.saveConfirmation(confirmation);
        recorder.crown(confirmation.championId());
        store.event("confirmed", Map.of("champion", confirmation.championId(), "device", confirmation.device(),
                "score", confirmation.championScore()));
        CampaignState confirmed = state.withBestId(recorder.champion().id());
        store.saveState(confirmed);
        return confirmed;
    }
}
