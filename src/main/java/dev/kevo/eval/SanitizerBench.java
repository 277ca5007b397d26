package dev.kevo.eval;

import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.Precision;
import dev.kevo.task.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * The device memory of a sanitizer run: per shape, x, y and the workspace each allocated at exactly its size, with
 * no guard zones. An evaluation's {@link Workbench} surrounds them with guards, which makes a read just past x a read
 * of kevo's own memory that memcheck cannot tell from a legal one; here the byte after each buffer belongs to no
 * allocation. Everything is allocated up front, with a gap allocated behind each buffer and freed before any
 * launch, so that neither the allocator (which packs small allocations) nor a later allocation puts another
 * buffer right behind one; compute-sanitizer's padding does the same where it applies.
 */
final class SanitizerBench implements AutoCloseable {
    /** As far past a buffer as the guard zones of an evaluation reach. */
    static final long GAP_BYTES = Workbench.GUARD_BYTES;

    private final List<DeviceBuffer> x = new ArrayList<>();
    private final List<DeviceBuffer> y = new ArrayList<>();
    private final List<DeviceBuffer> workspace = new ArrayList<>();

    /**
     * @param dtype the element types of x and y
     * @param workspaceBytes each shape's workspace, in bytes (0: a one-byte buffer, which no access fits in)
     */
    SanitizerBench(Gpu gpu, List<Shape> shapes, Precision dtype, List<Long> workspaceBytes) {
        List<DeviceBuffer> gaps = new ArrayList<>();
        try {
            for (int i = 0; i < shapes.size(); i++) {
                long elements = shapes.get(i).elements();
                x.add(gpu.alloc(elements * dtype.x().bytes()));
                gaps.add(gpu.alloc(GAP_BYTES));
                y.add(gpu.alloc(elements * dtype.y().bytes()));
                gaps.add(gpu.alloc(GAP_BYTES));
                workspace.add(gpu.alloc(workspaceBytes.get(i)));
                gaps.add(gpu.alloc(GAP_BYTES));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        } finally {
            gaps.forEach(DeviceBuffer::close);
        }
    }

    DevicePointer x(int shape) {
        return x.get(shape).pointer();
    }

    DevicePointer y(int shape) {
        return y.get(shape).pointer();
    }

    DevicePointer workspace(int shape) {
        return workspace.get(shape).pointer();
    }

    @Override
    public void close() {
        x.forEach(DeviceBuffer::close);
        y.forEach(DeviceBuffer::close);
        workspace.forEach(DeviceBuffer::close);
    }
}
