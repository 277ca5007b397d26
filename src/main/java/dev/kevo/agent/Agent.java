package dev.kevo.agent;

import java.util.Optional;

/**
 * Proposes kernel variants. One implementation per source of ideas: the built-in mutation engine (no model,
 * no network) and language models. The campaign chooses which agent answers each request by config weights,
 * and judges whatever comes back with the same evaluator. A campaign calls an agent from several threads at
 * once (proposals overlap GPU evaluation), so implementations are thread-safe and bound their own
 * concurrency.
 */
public interface Agent {

    /** Short stable name recorded with every mutant it proposes, e.g. {@code builtin}. */
    String name();

    /**
     * Checks, before any GPU work starts, that the agent can work at all (a model's key is set, its server
     * answers).
     *
     * @throws dev.kevo.KevoException with one line saying what is missing
     */
    default void checkReady() {
    }

    /**
     * Whether two requests alike would get answers alike, so that a generation should give each request to this
     * agent a parent, inspirations and focus of its own (a model: its prompt is all it sees). An agent that draws
     * its own mutations needs no such care.
     */
    default boolean wantsDistinctRequests() {
        return false;
    }

    /**
     * Whether a proposal costs nothing and depends on its request alone (no model, no state kept between calls), so
     * that a campaign may draw a child's proposal ahead of its generation, to have it compiled while the GPU judges
     * the last children of the generation before. Such a draw is never recorded: the child proposes again when its
     * generation starts, and only a source equal to the one drawn ahead uses that compile.
     */
    default boolean proposesOffline() {
        return false;
    }

    /**
     * How many of a parent's shapes furthest from the memory floor this agent wants Nsight Compute's profile of
     * ({@link ProposalRequest#parentProfile}); 0, the default, for none. A profile is computed once per parent.
     */
    default int profileShapes() {
        return 0;
    }

    /**
     * One child of the request's parent (and mate, for crossover).
     *
     * @throws AgentException when no usable proposal can be made; the campaign records it and goes on
     */
    Proposal propose(ProposalRequest request);

    /**
     * Another try at a candidate of this agent's that failed to compile or was wrong. Empty when the agent does
     * not repair, or has used its rounds.
     *
     * @throws AgentException when the repair itself failed; recorded like a failed proposal
     */
    default Optional<Proposal> repair(RepairRequest request) {
        return Optional.empty();
    }
}
