package dev.kevo.task;

import dev.kevo.data.Precision;
import java.nio.file.Path;
import java.util.List;

/**
 * One mutant: a self-contained CUDA source and the launch plan from its {@code /*@kevo} header.
 *
 * @param name a short name for tables and NVRTC's log (the file name)
 * @param path where it was read from, or a synthetic path for in-memory kernels
 * @param source the whole file, header included (NVRTC ignores the comment)
 * @param description the header's one-line description, possibly empty
 * @param workspace bytes of scratch memory the plan needs
 * @param plans tried in order; the first whose condition holds is used
 * @param knobs the tunable parameters the header declares, with their current values (compiled in as macros)
 * @param precision the dtypes of x and y the file implements (header key {@code dtype}; float32 when absent)
 */
public record KernelFile(String name, Path path, String source, String description, Expr workspace,
                         List<Plan> plans, Knobs knobs, Precision precision) {

    public KernelFile {
        plans = List.copyOf(plans);
    }

    /** The same header under another name and source: a file as a test or a worker sees an edited copy. */
    public KernelFile withSource(String newName, String newSource) {
        return new KernelFile(newName, null, newSource, description, workspace, plans, knobs, precision);
    }

    /** Names of all kernels that some plan launches. */
    public List<String> kernelNames() {
        return plans.stream().flatMap(p -> p.launches().stream()).map(Launch::kernel).distinct().toList();
    }

    /** One alternative launch sequence and the shapes it is meant for. */
    public record Plan(Expr when, List<Launch> launches) {
        public Plan {
            launches = List.copyOf(launches);
        }
    }

    /**
     * One kernel launch: a 1-D grid of 1-D blocks.
     *
     * @param cluster blocks per thread-block cluster (1: no cluster): consecutive blocks resident together that can
     *     read each other's shared memory
     */
    public record Launch(String kernel, Expr grid, Expr block, Expr smem, boolean cooperative, Expr cluster,
                         List<Arg> args) {
        public Launch {
            args = List.copyOf(args);
        }
    }

    /** A kernel argument: one of the task's buffers, or an integer passed as {@code int}. */
    public sealed interface Arg {
        record Buffer(BufferName name) implements Arg {
            @Override
            public String toString() {
                return name.key();
            }
        }

        record Int(Expr value) implements Arg {
            @Override
            public String toString() {
                return value.text();
            }
        }
    }

    /** Device buffers a launch can name. */
    public enum BufferName {
        X("x"), Y("y"), WS("ws");

        private final String key;

        BufferName(String key) {
            this.key = key;
        }

        public String key() {
            return key;
        }
    }
}
