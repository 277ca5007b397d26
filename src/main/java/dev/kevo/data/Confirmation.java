package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Comparator;
import java.util.List;

/**
 * confirmation.json: the best few mutants of a campaign judged again one after another on one device, with the
 * at-scale checks (a shape past 2^31 elements, held-out shapes), so that the champion is named by scores measured
 * under the same conditions and passed everything.
 *
 * @param device the device every confirmation ran on
 * @param championId the contender with the best confirmed score among those that passed; null when none passed (the
 *     campaign then names no champion, and each entry's result says why)
 * @param championScore its confirmed score; null with no champion
 * @param judgedElements the most elements of any shape the champion was judged on (suite, fresh, held-out and
 *     at-scale shapes): what its export accepts; null with no champion
 * @param note in one line, what the confirmation could not do: the at-scale shape left unjudged for lack of GPU
 *     memory, or that no contender passed
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Confirmation(String device, List<Entry> entries, String championId, Double championScore,
                           Long judgedElements, String note) {

    /**
     * @param recordedDevice where the campaign first measured it
     * @param confirmed the new judgement on {@link Confirmation#device()}
     */
    public record Entry(String id, String recordedDevice, double recordedScore, CandidateResult confirmed) {
        double confirmedScore() {
            return confirmed.passed() && confirmed.score() != null ? confirmed.score().speedup()
                    : Double.NEGATIVE_INFINITY;
        }
    }

    public Confirmation {
        entries = List.copyOf(entries);
    }

    /** Names the best confirmed contender that passed, or none; entries come best-recorded first. */
    public static Confirmation of(List<Entry> entries) {
        Entry best = entries.stream().max(Comparator.comparingDouble(Entry::confirmedScore)).orElseThrow();
        if (best.confirmedScore() == Double.NEGATIVE_INFINITY) {
            return new Confirmation(best.confirmed().device(), entries, null, null, null, "none of the "
                    + entries.size() + " best passed confirmation, so the campaign names no champion");
        }
        CandidateResult judged = best.confirmed();
        return new Confirmation(judged.device(), entries, best.id(), best.confirmedScore(), judged.judgedElements(),
                judged.atScaleNote());
    }

    /**
     * The same confirmation with the title passed to contender {@code id} (one that passed it), and {@code why} in
     * the note: compute-sanitizer found something in the one named before.
     */
    public Confirmation crowned(String id, String why) {
        Entry next = entry(id).filter(e -> e.confirmed().passed()).orElseThrow(() ->
                new IllegalArgumentException(id + " did not pass confirmation"));
        String joined = note == null ? why : note + "; " + why;
        return new Confirmation(device, entries, id, next.confirmedScore(), next.confirmed().judgedElements(), joined);
    }

    /** The entry of mutant {@code id}, when it was a contender. */
    public java.util.Optional<Entry> entry(String id) {
        return entries.stream().filter(e -> e.id().equals(id)).findFirst();
    }
}
