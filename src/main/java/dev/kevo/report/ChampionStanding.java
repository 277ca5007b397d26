package dev.kevo.report;

import dev.kevo.data.CandidateResult;
import dev.kevo.data.Defaults;
import dev.kevo.data.FrozenCampaign;
import dev.kevo.data.InputCase;
import dev.kevo.data.MutantRecord;
import dev.kevo.data.Rejudged;
import dev.kevo.store.CampaignStore;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Whether a campaign's champion still stands against the checks kevo makes now. A campaign records the input cases
 * it judged on (campaign.yaml) and {@code kevo reeval} records each re-judgement beside the mutant
 * ({@code <id>.rejudged.json}), so kevo knows without a GPU when a champion was never checked on a case added since,
 * and when a later judgement rejected it. {@code show} and {@code report} print the line instead of presenting such a
 * champion as clean.
 */
public final class ChampionStanding {

    private ChampionStanding() {
    }

    /** A line saying what speaks against {@code champion} now; empty when nothing does. */
    public static Optional<String> of(CampaignStore store, FrozenCampaign frozen, MutantRecord champion) {
        Optional<Rejudged> again = store.rejudged(champion.id());
        if (again.isPresent() && !again.get().result().passed()) {
            CandidateResult r = again.get().result();
            return Optional.of("REJECTED when judged again (kevo " + again.get().kevoVersion() + ", "
                    + again.get().at() + (r.device() == null ? "" : ", " + r.device()) + "): " + r.verdict().id()
                    + (r.detail() == null ? "" : ": " + r.detail()));
        }
        List<InputCase> checked = again.map(Rejudged::cases).orElse(frozen.settings().cases());
        List<InputCase> unchecked = Defaults.CASES.stream().filter(c -> !checked.contains(c)).toList();
        if (unchecked.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("UNCHECKED on " + unchecked.stream().map(InputCase::id).collect(Collectors.joining(", "))
                + ", input cases kevo checks now and this campaign did not: kevo reeval " + store.dir() + " --id "
                + champion.id() + " judges it on them");
    }
}
