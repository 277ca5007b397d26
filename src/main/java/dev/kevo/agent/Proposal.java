package dev.kevo.agent;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * An agent's answer: a whole kernel file, and how it came about.
 *
 * @param source the complete .cu file, /*@kevo header included
 * @param genome the genome it was rendered from, when it has one (kept so that it can be mutated again)
 * @param operator {@code mutate}, {@code crossover}, {@code fresh} (a new genome, e.g. from a hand-written seed),
 *     {@code repair}, or an agent's own word such as a prompt template's name
 * @param summary one line saying what changed, for lineage
 * @param call the model exchange that produced it, for agents that ask a model
 */
public record Proposal(String source, Optional<JsonNode> genome, String operator, String summary,
                       Optional<ModelCall> call) {
}
