package dev.kevo.evolve;

import dev.kevo.eval.CandidateResult;
import dev.kevo.task.KernelFile;

/** Where a campaign sends candidates to be judged: a supervised GPU worker, or a test double. */
@FunctionalInterface
public interface Evaluations {
    CandidateResult evaluate(KernelFile file, long inputSeed);
}
