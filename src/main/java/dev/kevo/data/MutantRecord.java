package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * Everything recorded about one mutant, saved as {@code <id>.json} beside its {@code <id>.cu}.
 *
 * @param parents ids of the parents (one for a mutation, two for a crossover, none for a seed)
 * @param operator how it was made: seed, mutate, crossover, fresh, or an agent's own word
 * @param summary one line saying what changed against the first parent
 * @param sourceHash SHA-256 of the normalised source: identical kernels share it and are evaluated once
 * @param cachedFrom when the source had been evaluated before, the id whose result this reuses
 * @param agentMs time the agent took to propose it
 * @param model for a model's proposal, which model and what it cost; its prompt and raw answer are saved as
 *     {@code <id>.prompt.md} and {@code <id>.answer.md}
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MutantRecord(String id, List<String> parents, int generation, int island, String agent,
                           String operator, String summary, JsonNode genome, String sourceHash, String cachedFrom,
                           CandidateResult result, Double agentMs, String createdAt,
                           ModelUsage model) {
    /** The operator of a starting kernel, and the prefix of its id ({@code seed-online} for seeds/online.cu). */
    public static final String SEED = "seed";

    public MutantRecord {
        parents = List.copyOf(parents);
    }

    /** A mutant of generation 0 on island 0 with no parents and nothing else recorded; each part then by name. */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** The id a starting kernel gets from its file name. */
    public static String seedId(String fileName) {
        return SEED + "-" + fileName.replaceFirst("\\.cu$", "");
    }

    /** A starting kernel of the campaign, not a child of one. Not a stored property: the operator says it. */
    @JsonIgnore
    public boolean isSeed() {
        return SEED.equals(operator);
    }

    /** For a starting kernel, the name of the file it came from. */
    public String seedFileName() {
        return id.substring(SEED.length() + 1) + ".cu";
    }

    /**
     * The champion rule, the one place it is written: a challenger takes the title only with a strictly higher
     * score, so among equals the first to arrive keeps it. A null score (rejected, or no champion yet) never wins.
     */
    public static boolean beats(Double challenger, Double holder) {
        return challenger != null && (holder == null || challenger > holder);
    }

    /** Whether this mutant would take the title from {@code holder} (null: no champion yet). */
    public boolean beats(MutantRecord holder) {
        return passed() && beats(fitness(), holder == null ? null : holder.fitness());
    }

    /** Higher is better; rejected mutants have none. */
    public double fitness() {
        return result != null && result.passed() && result.score() != null ? result.score().speedup()
                : Double.NEGATIVE_INFINITY;
    }

    public boolean passed() {
        return result != null && result.passed();
    }

    /**
     * The evaluator judged this source itself: not a cache hit of an earlier mutant, and not an agent that gave
     * nothing to judge. These are what a campaign's evaluation count and budget count.
     */
    public boolean judged() {
        return cachedFrom == null && result != null && result.verdict() != Verdict.AGENT_FAILURE;
    }

    /** Names every part, so that no caller passes a row of nulls. */
    public static final class Builder {
        private final String id;
        private List<String> parents = List.of();
        private int generation;
        private int island;
        private String agent;
        private String operator;
        private String summary;
        private JsonNode genome;
        private String sourceHash;
        private String cachedFrom;
        private CandidateResult result;
        private Double agentMs;
        private String createdAt;
        private ModelUsage model;

        private Builder(String id) {
            this.id = id;
        }

        public Builder parents(List<String> value) {
            parents = value;
            return this;
        }

        public Builder generation(int value) {
            generation = value;
            return this;
        }

        public Builder island(int value) {
            island = value;
            return this;
        }

        public Builder agent(String value) {
            agent = value;
            return this;
        }

        public Builder operator(String value) {
            operator = value;
            return this;
        }

        public Builder summary(String value) {
            summary = value;
            return this;
        }

        public Builder genome(JsonNode value) {
            genome = value;
            return this;
        }

        public Builder sourceHash(String value) {
            sourceHash = value;
            return this;
        }

        public Builder cachedFrom(String value) {
            cachedFrom = value;
            return this;
        }

        public Builder result(CandidateResult value) {
            result = value;
            return this;
        }

        public Builder agentMs(Double value) {
            agentMs = value;
            return this;
        }

        public Builder createdAt(String value) {
            createdAt = value;
            return this;
        }

        public Builder model(ModelUsage value) {
            model = value;
            return this;
        }

        public MutantRecord build() {
            return new MutantRecord(id, parents, generation, island, agent, operator, summary, genome, sourceHash,
                    cachedFrom, result, agentMs, createdAt, model);
        }
    }
}
