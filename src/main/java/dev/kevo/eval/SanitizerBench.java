package dev.kevo.eval;

import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import java.util.ArrayList;
import java.util.List;

/**
 * The device memory of a sanitizer run: per shape, x, y and the workspace each allocated at exactly its size (the
 * workspace in whole words), with no guard zones. An evaluation's {@link Workbench} surrounds them with guards, which makes a read just past x a read
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
     * @param workspaceBytes each shape's workspace, in bytes, allocated in whole words (0: a one-byte buffer, which no
     *     access fits in)
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
                long words = (workspaceBytes.get(i) + 3) / 4;
                workspace.add(gpu.alloc(words == 0 ? 1 : words * 4));
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

    /**
     * Fills shape {@code shape}'s workspace with the poison an evaluation puts there before every launch: the
     * contract lets a kernel read its undefined contents (a tag it polls until a peer's write lands), so the sanitizer
     * must not see those reads as reads of memory nothing wrote. y is left as allocated: a kernel that reads its
     * output before writing it is initcheck's to find.
     */
    void poisonWorkspace(Gpu gpu, int shape) {
        DeviceBuffer ws = workspace.get(shape);
        if (ws.bytes() >= 4) {
            gpu.fill(ws.pointer(), Workbench.POISON_WS, ws.bytes() / 4);
        }
    }

    @Override
    public void close() {
        x.forEach(DeviceBuffer::close);
        y.forEach(DeviceBuffer::close);
        workspace.forEach(DeviceBuffer::close);
    }
}
