package dev.kevo.evolve;

import dev.kevo.KevoException;
import dev.kevo.data.CampaignState;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.Confirmation;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Sanitized;
import dev.kevo.store.CampaignStore;
import dev.kevo.store.RecordSeal;
import dev.kevo.store.SanitizedRecords;
import dev.kevo.store.SourceHash;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * No champion is named unsanitized: once the campaign has confirmed its champion, the champion runs under
 * compute-sanitizer, and one with a finding gives the title to the next contender that passed confirmation and has
 * none (best confirmed score first); with none left, the champion stays named, its record saying what was found, and
 * {@code kevo export} refuses it. Each record is kept beside the mutant's source ({@code <id>.sanitized.json}),
 * where {@code kevo export} looks. Runs once, after champion confirmation, on the campaign's own thread; does nothing
 * where the judge has no sanitizer ({@code sanitize: off}).
 */
final class ChampionSanitizer {

    private final Judge judge;
    private final CampaignStore store;
    private final Recorder recorder;

    ChampionSanitizer(Judge judge, CampaignStore store, Recorder recorder) {
        this.judge = judge;
        this.store = store;
        this.recorder = recorder;
    }

    /** The state with the champion that passed (saved when it changed), or {@code state} as it was. */
    CampaignState sanitize(CampaignState state) {
        MutantRecord champion = recorder.champion();
        if (champion == null) {
            return state;
        }
        List<MutantRecord> ranked = new ArrayList<>(List.of(champion));
        store.confirmation().ifPresent(c -> c.entries().stream()
                .filter(e -> e.confirmed().passed() && !e.id().equals(champion.id()))
                .sorted(Comparator.comparingDouble((Confirmation.Entry e) -> e.confirmed().score().speedup())
                        .reversed())
                .map(e -> recorder.get(e.id())).filter(Objects::nonNull).forEach(ranked::add));
        for (MutantRecord m : ranked) {
            Optional<Sanitized> earlier = store.sanitized(m.id());
            Sanitized record;
            if (earlier.isPresent()) {
                record = earlier.get();  // a resumed campaign that had got this far
            } else {
                Optional<Sanitized> found;
                try {
                    found = fromEvaluation(m).or(() -> judge.sanitize(parse(m), judgedAtScale(m)));
                } catch (KevoException e) {
                    // The sanitizer could not run here (none on this host, no GPU on the node that supervises):
                    // the champion stays, unsanitized, and kevo export will say so.
                    store.event("unsanitized", Map.of("champion", champion.id(), "why", e.getMessage()));
                    return state;
                }
                if (found.isEmpty()) {
                    return state;
                }
                record = found.get().withSourceHash(SourceHash.of(store.source(m.id())));
                store.saveSanitized(m.id(), record);
                Map<String, Object> event = new LinkedHashMap<>(Map.of("id", m.id(), "verdict",
                        record.verdict().id(), "seconds", record.seconds()));
                if (record.detail() != null) {
                    event.put("detail", record.detail());
                }
                store.event("sanitized", event);
            }
            if (record.passed()) {
                if (m.id().equals(champion.id())) {
                    return state;
                }
                recorder.crown(m.id());
                // confirmation.json names the champion too: the one that passed the sanitizer, and why.
                store.confirmation().filter(c -> c.entry(m.id()).isPresent()).ifPresent(c -> store.saveConfirmation(
                        c.crowned(m.id(), "compute-sanitizer found something in " + champion.id() + " ("
                                + store.sanitized(champion.id()).map(s -> s.verdict().id()).orElse("a finding")
                                + "), so " + m.id() + " is champion")));
                CampaignState crowned = state.withBestId(m.id());
                store.saveState(crowned);
                return crowned;
            }
        }
        return state;
    }

    /**
     * The pass its evaluation already ran ({@code sanitize: every}), where it counts here: sealed by this host's kevo
     * for the source the folder holds (a record edited into a mutant's file is run again, not taken).
     */
    private Optional<Sanitized> fromEvaluation(MutantRecord m) {
        return Optional.ofNullable(m.result().sanitized()).filter(s -> SanitizedRecords.unverified(s,
                store.source(m.id()), RecordSeal.local()).isEmpty());
    }

    /** Its champion confirmation, which checked the most shapes, else its campaign evaluation. */
    private CandidateResult judgedAtScale(MutantRecord m) {
        return store.confirmation().flatMap(c -> c.entry(m.id())).map(Confirmation.Entry::confirmed)
                .filter(CandidateResult::passed).orElse(m.result());
    }

    private KernelFile parse(MutantRecord m) {
        return ContractParser.parse(m.id() + ".cu", store.sourcePath(m.id()), store.source(m.id()));
    }
}
