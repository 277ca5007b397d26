package dev.kevo.agent;

/**
 * Where a proposal request stands among its generation's, so that an agent asked several times in one generation
 * can ask distinct questions instead of paying for the same one twice.
 *
 * @param generation the generation the request belongs to; negative for a request outside any
 * @param variant 0 for the generation's first request to this agent, 1 for the next, ... (islands in order)
 */
public record RequestSlot(int generation, int variant) {
    /** A request outside a campaign's generations (one-off proposals): nothing to tell it apart from. */
    public static final RequestSlot SINGLE = new RequestSlot(-1, 0);

    public boolean inGeneration() {
        return generation >= 0;
    }
}
