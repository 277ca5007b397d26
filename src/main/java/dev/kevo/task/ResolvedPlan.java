package dev.kevo.task;

import java.util.List;

/**
 * A launch plan with every expression evaluated for one shape on one device: what the evaluator runs.
 *
 * @param planIndex which of the file's plans matched (0-based)
 * @param workspaceBytes bytes of scratch memory to pass as {@code ws}
 */
public record ResolvedPlan(int planIndex, long workspaceBytes, List<Launch> launches) {

    public ResolvedPlan {
        launches = List.copyOf(launches);
    }

    /** A launch ready for the driver; {@code cluster} is 1 for a launch without thread-block clusters. */
    public record Launch(String kernel, int grid, int block, int smem, boolean cooperative, int cluster,
                         List<Object> args) {
        /** {@code args} holds {@link KernelFile.Arg.Buffer} for buffers (bound by name) and {@link Integer} for values. */
        public Launch {
            args = List.copyOf(args);
        }
    }
}
