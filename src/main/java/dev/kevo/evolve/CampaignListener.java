package dev.kevo.evolve;

import dev.kevo.data.CampaignState;
import dev.kevo.data.MutantRecord;

/** Told what a campaign does, for progress displays; must not throw. */
public interface CampaignListener {
    CampaignListener NONE = new CampaignListener() {
    };

    default void evaluated(MutantRecord mutant, CampaignState state, MutantRecord champion) {
    }

    default void agentFailed(String agent, String message) {
    }

    default void generationEnded(CampaignState state, MutantRecord champion) {
    }

    default void finished(CampaignState state, MutantRecord champion, String reason) {
    }
}
