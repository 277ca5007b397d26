package dev.kevo.worker;

import dev.kevo.KevoException;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.SanitizeWhen;
import java.util.Optional;

/**
 * The CUDA tools a GPU worker's supervisor may run the worker's files under, on its device: compute-sanitizer (a
 * champion, or every candidate, before it is named) and Nsight Compute (a parent's profile for a model).
 */
public record Tools(Optional<ComputeSanitizer> sanitizer, Optional<NsightCompute> profiler) {
    public static final Tools NONE = new Tools(Optional.empty(), Optional.empty());

    public static Tools sanitizing(Optional<ComputeSanitizer> sanitizer) {
        return new Tools(sanitizer, Optional.empty());
    }

    public Tools withProfiler(Optional<NsightCompute> value) {
        return new Tools(sanitizer, value);
    }

    /**
     * Workers that are Slurm steps run nothing under compute-sanitizer (its report would be written on the node), so
     * {@code sanitize: every} cannot be kept there.
     *
     * @throws KevoException an input error for {@code sanitize: every}
     */
    public static void refuseSanitizeEveryOnSlurm(EvalSettings settings) {
        if (settings.sanitize() == SanitizeWhen.EVERY) {
            throw KevoException.input("sanitize: every runs compute-sanitizer on workers of this host, not on Slurm "
                    + "steps; set sanitize: champion or off, or run without --workers slurm");
        }
    }
}
