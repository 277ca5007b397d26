package dev.kevo.evolve;

import dev.kevo.data.CandidateResult;
import dev.kevo.data.Profile;
import dev.kevo.data.Defaults;
import dev.kevo.data.Sanitized;
import dev.kevo.data.Screen;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.KernelFile;
import dev.kevo.worker.WorkerPool;
import dev.kevo.data.Shape;
import java.util.List;
import java.util.Optional;

/**
 * Where a campaign sends candidates to be judged: supervised GPU workers, or a test double. Called from several
 * threads at once; an implementation runs as many evaluations at a time as it has devices and makes the rest
 * wait.
 */
public interface Judge {
    CandidateResult evaluate(KernelFile file, long inputSeed);

    /**
     * Judges under a cascade's first step: timed on the screen's shapes first, and on the rest only past its bar
     * ({@code screen} null: on every shape; a test double without a cascade of its own may ignore it).
     */
    default CandidateResult evaluate(KernelFile file, long inputSeed, Screen screen) {
        return evaluate(file, inputSeed);
    }

    /**
     * Judges a contender for champion again, on the one device that confirms champions, with the at-scale checks
     * (a test double may judge it as any other).
     */
    default CandidateResult confirm(KernelFile file, long inputSeed) {
        return evaluate(file, inputSeed);
    }

    /**
     * Runs the file under compute-sanitizer on the device that confirms champions, on the shapes {@code judged} was
     * checked on; empty where this judge has no sanitizer ({@code sanitize: off}, or a test double).
     */
    default Optional<Sanitized> sanitize(KernelFile file, CandidateResult judged) {
        return Optional.empty();
    }

    /**
     * Nsight Compute's profile of the file's launches on {@code shapes}, on a device while no candidate is timed
     * there; empty where this judge cannot profile (no ncu, workers on a cluster, a test double).
     */
    default Optional<Profile> profile(KernelFile file, long inputSeed, List<Shape> shapes) {
        return Optional.empty();
    }

    /** How many candidates this judge times at once: one per GPU. */
    default int parallelism() {
        return 1;
    }

    /** How many candidates this judge can compile ahead at once: {@link Defaults#COMPILERS_PER_GPU} per GPU. */
    default int compilers() {
        return parallelism() * Defaults.COMPILERS_PER_GPU;
    }

    /**
     * Compiles candidates before they are asked for, where this judge has idle compilers
     * ({@link WorkerPool#compileAhead}); a test double, or a judge without compilers, ignores it.
     */
    default void compileAhead(List<WorkerPool.Ahead> candidates) {
    }

    /** A pool of supervised workers as a campaign's judge: champions are confirmed on the first device. */
    static Judge of(WorkerPool workers) {
        return new Judge() {
            @Override
            public CandidateResult evaluate(KernelFile file, long inputSeed) {
                return evaluate(file, inputSeed, null);
            }

            @Override
            public CandidateResult evaluate(KernelFile file, long inputSeed, Screen screen) {
                return workers.evaluate(file, inputSeed, Evaluator.Run.plain().withScreen(screen));
            }

            @Override
            public CandidateResult confirm(KernelFile file, long inputSeed) {
                return workers.confirm(file, inputSeed);
            }

            @Override
            public int parallelism() {
                return workers.size();
            }

            @Override
            public int compilers() {
                return workers.compilers();
            }

            @Override
            public void compileAhead(List<WorkerPool.Ahead> candidates) {
                workers.compileAhead(candidates);
            }

            @Override
            public Optional<Sanitized> sanitize(KernelFile file, CandidateResult judged) {
                return workers.sanitize(file, judged);
            }

            @Override
            public Optional<Profile> profile(KernelFile file, long inputSeed, List<Shape> shapes) {
                return workers.profile(file, inputSeed, shapes);
            }
        };
    }
}
