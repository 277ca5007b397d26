package dev.kevo.agent;

/**
 * Proposes kernel variants. One implementation per source of ideas: the built-in mutation engine (no model,
 * no network) and language models. The campaign chooses which agent answers each request by config weights,
 * and judges whatever comes back with the same evaluator.
 */
public interface Agent {

    /** Short stable name recorded with every mutant it proposes, e.g. {@code builtin}. */
    String name();

    /**
     * One child of the request's parent (and mate, for crossover).
     *
     * @throws AgentException when no usable proposal can be made; the campaign records it and goes on
     */
    Proposal propose(ProposalRequest request);
}
