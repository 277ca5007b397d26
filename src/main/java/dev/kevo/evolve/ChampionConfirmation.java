package dev.kevo.evolve;

import dev.kevo.data.CampaignState;
import dev.kevo.data.Confirmation;
import dev.kevo.data.MutantRecord;
import dev.kevo.store.CampaignStore;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Before a campaign names its champion, the best few are judged again one after another on one device, with the
 * at-scale checks a campaign's evaluations leave out: a shape past 2^31 elements and held-out shapes drawn afresh.
 * The best confirmed score among those that pass is the champion: with several devices the recorded scores were each
 * measured on whichever device was free, and a kernel that fails at scale is no champion whatever it scored. When
 * none of the best passes, the next few are judged, up to {@link #ROUNDS} rounds; when none of those passes either,
 * the campaign names no champion. The results are kept in confirmation.json. Runs once, after the last generation,
 * on the campaign's own thread.
 */
final class ChampionConfirmation {
    /** Rounds of contenders judged at most before the campaign gives up naming a champion. */
    static final int ROUNDS = 3;

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

    /**
     * The state with the confirmed champion, or with none when no contender passed (saved); {@code state} itself when
     * no mutant passed at all.
     */
    CampaignState confirm(CampaignState state) {
        if (recorder.champion() == null) {
            return state;
        }
        List<MutantRecord> ranked = recorder.best(Integer.MAX_VALUE);
        List<Confirmation.Entry> entries = new ArrayList<>();
        for (int next = 0; next < Math.min(ranked.size(), ROUNDS * contenders)
                && entries.stream().noneMatch(e -> e.confirmed().passed()); next += contenders) {
            for (MutantRecord m : ranked.subList(next, Math.min(ranked.size(), next + contenders))) {
                KernelFile file = ContractParser.parse(m.id() + ".cu", store.sourcePath(m.id()), store.source(m.id()));
                entries.add(new Confirmation.Entry(m.id(), m.result().device(), m.fitness(),
                        evaluations.confirm(file, m.result().inputSeed())));
            }
        }
        Confirmation confirmation = Confirmation.of(entries);
        store.saveConfirmation(confirmation);
        recorder.crown(confirmation.championId());
        Map<String, Object> event = new LinkedHashMap<>();
        event.put("champion", confirmation.championId() == null ? "" : confirmation.championId());
        event.put("device", confirmation.device());
        event.put("score", confirmation.championScore() == null ? 0 : confirmation.championScore());
        event.put("judgedElements", confirmation.judgedElements() == null ? 0 : confirmation.judgedElements());
        store.event("confirmed", event);
        CampaignState confirmed = state.withBestId(confirmation.championId());
        store.saveState(confirmed);
        return confirmed;
    }
}
