package dev.kevo.agent;

import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * What an agent is given: the campaign's task, the parent to improve, optionally a second parent to cross
 * with, the best of other islands as inspiration, recent failures with their verdicts, and the randomness to
 * use (derived from the campaign's seed and the request's number, so a resumed campaign proposes the same
 * children).
 *
 * @param relatives earlier kernels that declare knobs, best first, so that an agent can say which knob values did
 *     best (as of the generation's start, so a replay sees the same)
 * @param slot which of its generation's requests to the same agent this is
 */
public record ProposalRequest(TaskContext context, Candidate parent, Optional<Candidate> mate,
                              List<Candidate> inspirations, List<Candidate> recentFailures, RandomGenerator random,
                              List<Candidate> relatives, RequestSlot slot) {
    public ProposalRequest {
        inspirations = List.copyOf(inspirations);
        recentFailures = List.copyOf(recentFailures);
        relatives = List.copyOf(relatives);
        slot = slot == null ? RequestSlot.SINGLE : slot;
    }

    /** A request on its own, outside a generation. */
    public ProposalRequest(TaskContext context, Candidate parent, Optional<Candidate> mate,
                           List<Candidate> inspirations, List<Candidate> recentFailures, RandomGenerator random,
                           List<Candidate> relatives) {
        this(context, parent, mate, inspirations, recentFailures, random, relatives, RequestSlot.SINGLE);
    }

    public ProposalRequest withSlot(RequestSlot value) {
        return new ProposalRequest(context, parent, mate, inspirations, recentFailures, random, relatives, value);
    }
}
