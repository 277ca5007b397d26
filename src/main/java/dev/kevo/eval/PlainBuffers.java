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
import java.util.Map;

/**
 * A shape's buffers as a user's program would allocate them: x (a gradient's y and dy; and each tensor the shape's mask
 * kind reads, and a loss's labels), y (and a loss's value) and the workspace each an allocation of its own of exactly
 * the bytes it needs (y and the workspace in whole words, which the poison is written in), nothing around them. A
 * checked launch here is the one no guard zone, shift or neighbouring kevo buffer can tell from a user's call; it is
 * judged against the same reference. A gradient's inputs are derived through kevo's own memory beside them ({@link
 * ForwardScratch}).
 */
final class PlainBuffers implements CheckBuffers, AutoCloseable {
    private final Gpu gpu;
    private final Task task;
    private final DeviceBuffer x;
    /** A gradient's row inputs after the first (dy), each exactly its size; none for a forward operator. */
    private final List<DeviceBuffer> moreRows = new ArrayList<>();
    private final ForwardScratch forward;
    private final DeviceBuffer lengths;
    private final DeviceBuffer mask;
    private final DeviceBuffer labels;
    private final DeviceBuffer y;
    /** A loss's value, one float; null for an operator without one. */
    private final DeviceBuffer reduced;
    private final DeviceBuffer workspace;
    private final long yWords;
    private Map<String, Float> scalars = Map.of();

    PlainBuffers(Gpu gpu, Task task, Shape shape, long wsBytes) {
        this.gpu = gpu;
        this.task = task;
        List<DeviceBuffer> held = new ArrayList<>();
        try {
            List<Tensor> rows = task.op().rowInputs();
            x = Workbench.held(held, gpu.alloc(rows.getFirst().bytes(shape, task.dtype())));
            for (Tensor t : rows.subList(1, rows.size())) {
                moreRows.add(Workbench.held(held, gpu.alloc(t.bytes(shape, task.dtype()))));
            }
            lengths = extra(held, shape, Tensor.Extent.BATCH);
            mask = extra(held, shape, Tensor.Extent.BATCH_QUERIES_KEYS);
            labels = extra(held, shape, Tensor.Extent.ROWS);
            yWords = (task.op().output().bytes(shape, task.dtype()) + 3) / 4;
            y = Workbench.held(held, gpu.alloc(yWords * 4));
            reduced = task.op().reducedOutput().isEmpty() ? null
                    : Workbench.held(held, gpu.alloc(Workbench.REDUCED_BYTES));
            long wsWords = (wsBytes + 3) / 4;
            workspace = Workbench.held(held, gpu.alloc(wsWords == 0 ? 1 : wsWords * 4));
            forward = ForwardScratch.of(gpu, task, List.of(shape), 1);
        } catch (RuntimeException e) {
            held.forEach(DeviceBuffer::close);
            throw e;
        }
    }

    /** The operator's input of {@code extent} at exactly its size for the shape, or null where it reads none. */
    private DeviceBuffer extra(List<DeviceBuffer> held, Shape shape, Tensor.Extent extent) {
        for (Tensor t : task.op().extraInputs()) {
            if (t.extent() == extent && t.present(shape)) {
                return Workbench.held(held, gpu.alloc(t.bytes(shape, task.dtype())));
            }
        }
        return null;
    }

    private Inputs inputs() {
        List<DevicePointer> rows = new ArrayList<>(List.of(x.pointer()));
        moreRows.forEach(b -> rows.add(b.pointer()));
        return new Inputs(rows, pointer(lengths), pointer(mask), pointer(labels), scalars,
                forward == null ? null : forward.source(0));
    }

    private static DevicePointer pointer(DeviceBuffer buffer) {
        return buffer == null ? DevicePointer.none() : buffer.pointer();
    }

    @Override
    public Inputs generate(TrustedKernels trusted, Shape shape, long caseSeed, InputCase inputCase) {
        scalars = task.scalars(caseSeed);
        Inputs inputs = inputs();
        trusted.generate(inputs, shape, caseSeed, inputCase);
        return inputs;
    }

    @Override
    public Outputs outputs() {
        return new Outputs(y.pointer(), pointer(reduced));
    }

    @Override
    public Bindings bindings(Shape shape) {
        return inputs().bindings(task, shape, outputs(), workspace.pointer());
    }

    @Override
    public void arm(Shape shape, long wsBytes) {
        gpu.fill(y.pointer(), Workbench.poisonY(task.dtype().y()), yWords);
        if (reduced != null) {
            gpu.fill(reduced.pointer(), Workbench.POISON_Y, 1);
        }
        gpu.fill(workspace.pointer(), Workbench.POISON_WS, (wsBytes + 3) / 4);
    }

    @Override
    public long guardDamage(TrustedKernels trusted, Shape shape, long wsBytes) {
        return 0;
    }

    @Override
    public String where() {
        return "plain buffers of exactly the shape's size";
    }

    @Override
    public void close() {
        x.close();
        moreRows.forEach(DeviceBuffer::close);
        if (forward != null) {
            forward.close();
        }
        if (lengths != null) {
            lengths.close();
        }
        java.util.stream.Stream.of(mask, labels, reduced).filter(java.util.Objects::nonNull)
                .forEach(DeviceBuffer::close);
        y.close();
        workspace.close();
    }
}
