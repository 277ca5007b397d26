package dev.kevo.agent;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kevo.data.CandidateResult;
import java.util.Optional;

/**
 * A kernel as agents see it: its id, source, the genome it was rendered from (built-in agent's mutants only)
 * and what the evaluator measured.
 */
public record Candidate(String id, String source, Optional<JsonNode> genome, CandidateResult result) {
}
