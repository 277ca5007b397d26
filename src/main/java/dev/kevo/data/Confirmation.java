package dev.kevo.data;

import java.util.Comparator;
import java.util.List;

/**
 * confirmation.json: the best few mutants of a campaign on several devices, judged again one after another on
 * one device, so that the champion is named by scores measured under the same conditions.
 *
 * @param device the device every confirmation ran on
 * @param championId the contender with the best confirmed score (or the recorded champion when none passed)
 */
public record Confirmation(String device, List<Entry> entries, String championId, double championScore) {

    /**
     * @param recordedDevice where the campaign first measured it
     * @param confirmed the new judgement on {@link Confirmation#device()}
     */
    public record Entry(String id, String recordedDevice, double recordedScore, CandidateResult confirmed) {
        double confirmedScore() {
            return confirmed.passed() && confirmed.score() != null ? confirmed.score() : Double.NEGATIVE_INFINITY;
        }
    }

    public Confirmation {
        entries = List.copyOf(entries);
    }

    /** Names the best confirmed contender; entries come best-recorded first. */
    public static Confirmation of(List<Entry> entries) {
        Entry best = entries.stream().max(Comparator.comparingDouble(Entry::confirmedScore)).orElseThrow();
        boolean anyPassed = best.confirmedScore() > Double.NEGATIVE_INFINITY;
        Entry named = anyPassed ? best : entries.getFirst();
        return new Confirmation(best.confirmed().device(), entries, named.id(),
                anyPassed ? best.confirmedScore() : named.recordedScore());
    }
}
