package dev.kevo.task;

import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
 * @param dtypes the dtypes of x and y the file implements (header key {@code dtype}: one, or a list for a file
 *     written against the types {@code KEVO_X} and {@code KEVO_Y}, which kevo defines for the dtype judged; float32
 *     when absent)
 * @param op the operator the file implements (header key {@code op}; softmax when absent): what its buffer arguments
 *     name and what it is judged against
 */
public record KernelFile(String name, Path path, String source, String description, Expr workspace,
                         List<Plan> plans, Knobs knobs, List<Precision> dtypes, Operator op) {

    public KernelFile {
        plans = List.copyOf(plans);
        dtypes = List.copyOf(dtypes);
    }

    public boolean implementsDtype(Precision dtype) {
        return dtypes.contains(dtype);
    }

    /**
     * What kevo defines when it compiles the file to be judged in {@code dtype}: the knobs' macros, and {@code KEVO_X}
     * and {@code KEVO_Y} as the element types of x and y ({@code float}, {@code kevo_bf16}, {@code kevo_half}).
     */
    public Map<String, String> macros(Precision dtype) {
        Map<String, String> macros = new LinkedHashMap<>(knobs.macros());
        macros.put("KEVO_X", dtype.x().cudaType());
        macros.put("KEVO_Y", dtype.y().cudaType());
        return macros;
    }

    /** The same header under another name and source: a file as a test or a worker sees an edited copy. */
    public KernelFile withSource(String newName, String newSource) {
        return new KernelFile(newName, null, newSource, description, workspace, plans, knobs, dtypes, op);
    }

    /** The same file with other knobs (their values are compiled in as macros). */
    public KernelFile withKnobs(Knobs newKnobs) {
        return new KernelFile(name, path, source, description, workspace, plans, newKnobs, dtypes, op);
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

    /**
     * A kernel argument: one of the operator's tensors, its scalars or the workspace (by the name a plan gives it), or
     * an integer passed as {@code int}.
     */
    public sealed interface Arg {
        /**
         * A value bound by name at launch: a tensor's or the workspace's device pointer, or a scalar's float (the
         * operator's {@code Scalar}s; kevo export, which takes only softmax, never meets one).
         */
        record Buffer(String name) implements Arg {
            @Override
            public String toString() {
                return name;
            }
        }

        record Int(Expr value) implements Arg {
            @Override
            public String toString() {
                return value.text();
            }
        }
    }

    /** The name a plan passes the workspace by, whatever the operator. */
    public static final String WORKSPACE = "ws";
}
