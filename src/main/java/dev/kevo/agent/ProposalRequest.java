package dev.kevo.agent;

import dev.kevo.data.Profile;
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
 * @param parentProfile Nsight Compute's profile of the parent on its shapes furthest from the memory floor, for an
 *     agent that asked for one ({@link Agent#profileShapes}) on a host that has ncu
 */
public record ProposalRequest(TaskContext context, Candidate parent, Optional<Candidate> mate,
                              List<Candidate> inspirations, List<Candidate> recentFailures, RandomGenerator random,
                              List<Candidate> relatives, RequestSlot slot, Optional<Profile> parentProfile) {
    public ProposalRequest {
        inspirations = List.copyOf(inspirations);
        recentFailures = List.copyOf(recentFailures);
        relatives = List.copyOf(relatives);
        slot = slot == null ? RequestSlot.SINGLE : slot;
        parentProfile = parentProfile == null ? Optional.empty() : parentProfile;
    }

    /** A request for {@code parent}, with no mate, inspirations, failures or relatives, outside a generation. */
    public static Builder builder(Candidate parent, RandomGenerator random) {
        return new Builder(parent, random);
    }

    /** Names each part a request has beyond its parent and randomness. */
    public static final class Builder {
        private final Candidate parent;
        private final RandomGenerator random;
        private TaskContext context;
        private Optional<Candidate> mate = Optional.empty();
        private List<Candidate> inspirations = List.of();
        private List<Candidate> recentFailures = List.of();
        private List<Candidate> relatives = List.of();
        private RequestSlot slot = RequestSlot.SINGLE;
        private Optional<Profile> parentProfile = Optional.empty();

        private Builder(Candidate parent, RandomGenerator random) {
            this.parent = parent;
            this.random = random;
        }

        public Builder context(TaskContext value) {
            context = value;
            return this;
        }

        public Builder mate(Optional<Candidate> value) {
            mate = value;
            return this;
        }

        public Builder inspirations(List<Candidate> value) {
            inspirations = value;
            return this;
        }

        public Builder recentFailures(List<Candidate> value) {
            recentFailures = value;
            return this;
        }

        public Builder relatives(List<Candidate> value) {
            relatives = value;
            return this;
        }

        /** Which of its generation's requests to the same agent this is (default: one on its own). */
        public Builder slot(RequestSlot value) {
            slot = value;
            return this;
        }

        public Builder parentProfile(Optional<Profile> value) {
            parentProfile = value;
            return this;
        }

        public ProposalRequest build() {
            return new ProposalRequest(context, parent, mate, inspirations, recentFailures, random, relatives, slot,
                    parentProfile);
        }
    }

    public ProposalRequest withSlot(RequestSlot value) {
        return new ProposalRequest(context, parent, mate, inspirations, recentFailures, random, relatives, value,
                parentProfile);
    }
}
