package dev.kevo.worker;

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
}
