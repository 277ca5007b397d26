package dev.kevo.agent;

import dev.kevo.data.ModelUsage;

/**
 * One exchange with a model, saved beside the mutant it produced (or the failure it caused) so that a person
 * can read what the model was shown and what it said.
 *
 * @param prompt every message sent, in order, as text
 * @param answer the model's raw answer, unparsed
 */
public record ModelCall(String prompt, String answer, ModelUsage usage) {
}
