package dev.kevo.eval;

import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.InputCase;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import java.util.ArrayList;
import java.util.List;

/**
 * The device memory of a sanitizer run: per shape, x (a gradient's y and dy; and each tensor the shape's mask kind
 * reads, a loss's labels), y (and a loss's value) and the workspace each allocated at exactly its size (the workspace
 * in whole words), with no guard zones; for a gradient, kevo's own memory its inputs are derived through ({@link
 * ForwardScratch}), once for every shape. An evaluation's {@link Workbench} surrounds them with guards, which makes a
 * read just past x a read of kevo's own memory that memcheck cannot tell from a legal one; here the byte after each
 * buffer belongs to no allocation. Everything is allocated up front, with a gap allocated behind each buffer and freed
 * before any launch, so that neither the allocator (which packs small allocations) nor a later allocation puts another
 * buffer right behind one; compute-sanitizer's padding does the same where it applies.
 */
final class SanitizerBench implements AutoCloseable {
    /** As far past a buffer as the guard zones of an evaluation reach. */
    static final long GAP_BYTES = Workbench.GUARD_BYTES;

    private final Task task;
    private final List<Shape> shapes;
    private final List<DeviceBuffer> x = new ArrayList<>();
    /** Per shape, a gradient's row inputs after the first (dy); none for a forward operator. */
    private final List<List<DeviceBuffer>> moreRows = new ArrayList<>();
    private ForwardScratch forward;
    /** Per shape, the lengths and the additive mask where its mask kind reads them, else null. */
    private final List<DeviceBuffer> lengths = new ArrayList<>();
    private final List<DeviceBuffer> mask = new ArrayList<>();
    /** Per shape, a loss's labels and its value, else null. */
    private final List<DeviceBuffer> labels = new ArrayList<>();
    private final List<DeviceBuffer> reduced = new ArrayList<>();
    private final List<DeviceBuffer> y = new ArrayList<>();
    private final List<DeviceBuffer> workspace = new ArrayList<>();

    /**
     * @param task the operator, whose tensors and element types the buffers' sizes follow
     * @param workspaceBytes each shape's workspace, in bytes, allocated in whole words (0: a one-byte buffer, which no
     *     access fits in)
     */
    SanitizerBench(Gpu gpu, List<Shape> shapes, Task task, List<Long> workspaceBytes) {
        this.task = task;
        this.shapes = List.copyOf(shapes);
        List<DeviceBuffer> gaps = new ArrayList<>();
        try {
            for (int i = 0; i < shapes.size(); i++) {
                Shape shape = shapes.get(i);
                List<Tensor> rows = task.op().rowInputs();
                x.add(gpu.alloc(rows.getFirst().bytes(shape, task.dtype())));
                gaps.add(gpu.alloc(GAP_BYTES));
                List<DeviceBuffer> more = new ArrayList<>();
                moreRows.add(more);
                for (Tensor t : rows.subList(1, rows.size())) {
                    more.add(gpu.alloc(t.bytes(shape, task.dtype())));
                    gaps.add(gpu.alloc(GAP_BYTES));
                }
                lengths.add(extra(gpu, gaps, shape, Tensor.Extent.BATCH));
                mask.add(extra(gpu, gaps, shape, Tensor.Extent.BATCH_QUERIES_KEYS));
                labels.add(extra(gpu, gaps, shape, Tensor.Extent.ROWS));
                y.add(gpu.alloc(task.op().output().bytes(shape, task.dtype())));
                gaps.add(gpu.alloc(GAP_BYTES));
                if (task.op().reducedOutput().isPresent()) {
                    reduced.add(gpu.alloc(Workbench.REDUCED_BYTES));
                    gaps.add(gpu.alloc(GAP_BYTES));
                } else {
                    reduced.add(null);
                }
                long words = (workspaceBytes.get(i) + 3) / 4;
                workspace.add(gpu.alloc(words == 0 ? 1 : words * 4));
                gaps.add(gpu.alloc(GAP_BYTES));
            }
            forward = ForwardScratch.of(gpu, task, shapes, 1);
        } catch (RuntimeException e) {
            close();
            throw e;
        } finally {
            gaps.forEach(DeviceBuffer::close);
        }
    }

    /** The operator's input of {@code extent} for {@code shape}, exactly its size with a gap behind, or null. */
    private DeviceBuffer extra(Gpu gpu, List<DeviceBuffer> gaps, Shape shape, Tensor.Extent extent) {
        for (Tensor t : task.op().extraInputs()) {
            if (t.extent() == extent && t.present(shape)) {
                DeviceBuffer buffer = gpu.alloc(t.bytes(shape, task.dtype()));
                gaps.add(gpu.alloc(GAP_BYTES));
                return buffer;
            }
        }
        return null;
    }

    DevicePointer x(int shape) {
        return x.get(shape).pointer();
    }

    /**
     * Generates shape {@code shape}'s inputs of {@code inputCase} under {@code caseSeed}: x, the tensors its mask kind
     * reads and the scalars' values; what {@link #bindings} then passes.
     */
    Inputs generate(TrustedKernels trusted, int shape, long caseSeed, InputCase inputCase) {
        List<DevicePointer> rows = new ArrayList<>(List.of(x(shape)));
        moreRows.get(shape).forEach(b -> rows.add(b.pointer()));
        Inputs inputs = new Inputs(rows, pointer(lengths.get(shape)), pointer(mask.get(shape)),
                pointer(labels.get(shape)), task.scalars(caseSeed), forward == null ? null : forward.source(0));
        trusted.generate(inputs, shapes.get(shape), caseSeed, inputCase);
        return inputs;
    }

    /** What a launch on shape {@code shape} of {@code inputs} gets, by the operator's names. */
    Bindings bindings(int shape, Inputs inputs) {
        return inputs.bindings(task, shapes.get(shape), new Outputs(y(shape), pointer(reduced.get(shape))),
                workspace(shape));
    }

    private static DevicePointer pointer(DeviceBuffer buffer) {
        return buffer == null ? DevicePointer.none() : buffer.pointer();
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
        moreRows.forEach(more -> more.forEach(DeviceBuffer::close));
        if (forward != null) {
            forward.close();
        }
        java.util.stream.Stream.of(lengths, mask, labels, reduced).flatMap(List::stream)
                .filter(java.util.Objects::nonNull).forEach(DeviceBuffer::close);
        y.forEach(DeviceBuffer::close);
        workspace.forEach(DeviceBuffer::close);
    }
}
