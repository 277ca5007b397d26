package dev.kevo.agent;

import java.util.random.RandomGenerator;

/**
 * Another try at a candidate that failed to compile or was wrong: its source and result (compiler log or
 * mismatch summary) go back to the agent that made it.
 *
 * @param parent the kernel the failed candidate was meant to improve
 * @param failed the rejected candidate, its result saying why
 * @param round 1 for the first repair of a proposal, 2 for the repair of that repair, ...
 */
public record RepairRequest(TaskContext context, Candidate parent, Candidate failed, int round,
                            RandomGenerator random) {
}
