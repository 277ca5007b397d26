package dev.kevo.data;

import java.util.List;

/**
 * state.json: where a campaign stands after its last completed generation. Everything else (the mutants of a
 * generation in progress) is recovered from the mutant files, so a kill loses at most the evaluation in flight.
 *
 * @param generation generations completed (0: only the seeds evaluated)
 * @param evaluations candidates judged so far (cache hits included)
 * @param islands member ids of each island's population
 * @param bestId the champion
 * @param stale generations since the champion last improved
 * @param elapsedMillis campaign wall time, summed over runs (resumes do not reset it)
 * @param spend tokens and cost of the models so far (absent in folders from before models were supported)
 */
public record CampaignState(int generation, int evaluations, List<List<String>> islands, String bestId, int stale,
                            long elapsedMillis, Spend spend) {
    public CampaignState {
        islands = islands.stream().map(List::copyOf).toList();
        spend = spend == null ? Spend.NONE : spend;
    }

    /** The same state with another champion (a confirmation may name a different one). */
    public CampaignState withBestId(String id) {
        return new CampaignState(generation, evaluations, islands, id, stale, elapsedMillis, spend);
    }
}
