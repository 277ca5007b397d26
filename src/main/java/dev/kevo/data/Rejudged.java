package dev.kevo.data;

import java.util.List;

/**
 * {@code <id>.rejudged.json} in a campaign folder: the last time {@code kevo reeval} judged a saved mutant again, with
 * the input cases kevo checked then. {@code show} and {@code report} read it to mark a champion that a later kevo,
 * with checks the campaign did not have, rejects.
 *
 * @param kevoVersion the kevo that judged it again
 * @param at when (ISO-8601)
 * @param cases the input cases it was checked on
 * @param result the judgement
 */
public record Rejudged(String kevoVersion, String at, List<InputCase> cases, CandidateResult result) {
    public Rejudged {
        cases = List.copyOf(cases);
    }
}
