package dev.kevo.report;

import dev.kevo.data.ModelUsage;
import dev.kevo.data.MutantRecord;
import java.util.List;

/** What one model call cost for a mutant, as the report draws it: model, tokens in and out together, and cost. */
public record LlmUsage(String model, long tokens, double costUsd) {

    /** The mutant's model call, if a model made it; builtin mutants have none. */
    public static List<LlmUsage> of(MutantRecord m) {
        ModelUsage u = m.model();
        return u == null ? List.of() : List.of(new LlmUsage(u.model(), u.inputTokens() + u.outputTokens(), u.cost()));
    }
}
