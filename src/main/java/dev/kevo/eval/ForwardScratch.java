package dev.kevo.eval;

import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.List;

/**
 * kevo's own memory behind a gradient operator's inputs ({@link Inputs.Source}), which no launch of a candidate is
 * given: x, into which the forward's input is generated before each input set's y and dy are derived from it; per
 * input set, the forward's row statistics of that x, kept, because every comparison on the set (a checked launch, and
 * the timed launches checked at random, on sets of different cases) regenerates y and dy from its own; and the scratch
 * of the statistics' chunks. A forward operator needs none of it.
 */
final class ForwardScratch implements AutoCloseable {
    private final DeviceBuffer x;
    private final DeviceBuffer partial;
    private final List<DeviceBuffer> stats;

    private ForwardScratch(DeviceBuffer x, DeviceBuffer partial, List<DeviceBuffer> stats) {
        this.x = x;
        this.partial = partial;
        this.stats = stats;
    }

    /**
     * The memory for {@code sets} input sets of the largest of {@code shapes} where {@code task}'s operator is a
     * gradient, else null. When the GPU cannot hold it, frees what it had allocated before it throws.
     */
    static ForwardScratch of(Gpu gpu, Task task, List<Shape> shapes, int sets) {
        if (task.op().gradientOf().isEmpty()) {
            return null;
        }
        long elements = shapes.stream().mapToLong(Shape::elements).max().orElseThrow();
        long rows = shapes.stream().mapToLong(Shape::rows).max().orElseThrow();
        List<DeviceBuffer> allocated = new ArrayList<>();
        try {
            DeviceBuffer x = Workbench.held(allocated, gpu.alloc(elements * task.dtype().x().bytes()));
            DeviceBuffer partial = Workbench.held(allocated, gpu.alloc(shapes.stream()
                    .mapToLong(TrustedKernels::referenceScratchBytes).max().orElseThrow()));
            List<DeviceBuffer> stats = new ArrayList<>();
            for (int set = 0; set < sets; set++) {
                stats.add(Workbench.held(allocated, gpu.alloc(rows * 16)));
            }
            return new ForwardScratch(x, partial, stats);
        } catch (RuntimeException e) {
            allocated.forEach(DeviceBuffer::close);
            throw e;
        }
    }

    /** Where input set {@code set}'s inputs are derived through. */
    Inputs.Source source(int set) {
        return new Inputs.Source(x.pointer(), stats.get(set).pointer(), partial.pointer());
    }

    @Override
    public void close() {
        x.close();
        partial.close();
        stats.forEach(DeviceBuffer::close);
    }
}
