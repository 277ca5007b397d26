package dev.kevo.task;

import java.util.Optional;

/**
 * What a target architecture allows a launch, known without a device, so that {@code kevo check} can hold a plan to
 * it on a machine with no GPU: the opt-in shared memory of one block, and whether thread-block clusters exist. A GPU
 * at hand is asked instead (the evaluator's own checks before a launch); an architecture this table does not know is
 * not held to anything here.
 *
 * @param maxSharedPerBlock the largest shared memory one block may opt into, static and dynamic together, in bytes
 * @param clusters whether launches may use thread-block clusters (compute capability 9.0 and later)
 */
public record TargetLimits(int maxSharedPerBlock, boolean clusters) {

    /** The limits of {@code sm_XX} (a suffix such as {@code sm_90a} reads as its base), as NVIDIA's tables give them. */
    public static Optional<TargetLimits> of(String arch) {
        if (arch == null || !arch.matches("sm_\\d+[a-z]?")) {
            return Optional.empty();
        }
        int cc = Integer.parseInt(arch.replaceAll("[^0-9]", ""));
        return Optional.ofNullable(switch (cc) {
            case 70, 72 -> new TargetLimits(96 * 1024, false);
            case 75 -> new TargetLimits(64 * 1024, false);
            case 80, 87 -> new TargetLimits(163 * 1024, false);
            case 86, 89 -> new TargetLimits(99 * 1024, false);
            case 90, 100, 103 -> new TargetLimits(227 * 1024, true);
            case 120, 121 -> new TargetLimits(99 * 1024, true);
            default -> null;
        });
    }

    /**
     * Why {@code launch} cannot run on this target, given its kernel's static shared memory when known (0 before
     * compiling), or empty.
     */
    public Optional<String> violation(ResolvedPlan.Launch launch, int staticSharedBytes, String arch) {
        long shared = (long) launch.smem() + staticSharedBytes;
        if (shared > maxSharedPerBlock) {
            return Optional.of(launch.kernel() + ": " + shared + " bytes of shared memory per block, " + arch
                    + " allows " + maxSharedPerBlock);
        }
        if (launch.cluster() > 1 && !clusters) {
            return Optional.of(launch.kernel() + ": a cluster of " + launch.cluster() + " blocks, but " + arch
                    + " has no thread-block clusters (compute capability 9.0 and later)");
        }
        return Optional.empty();
    }
}
