package dev.kevo.eval;

import dev.kevo.cuda.DeviceBuffer;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.List;

/**
 * A shape's buffers as a user's program would allocate them: x, y and the workspace each an allocation of its own of
 * exactly the bytes it needs (y and the workspace in whole words, which the poison is written in), nothing around
 * them. A checked launch here is the one no guard zone, shift or neighbouring kevo buffer can tell from a user's
 * call; it is judged against the same reference.
 */
final class PlainBuffers implements CheckBuffers, AutoCloseable {
    private final Gpu gpu;
    private final Task task;
    private final DeviceBuffer x;
    private final DeviceBuffer y;
    private final DeviceBuffer workspace;
    private final long yWords;

    PlainBuffers(Gpu gpu, Task task, Shape shape, long wsBytes) {
        this.gpu = gpu;
        this.task = task;
        List<DeviceBuffer> held = new ArrayList<>();
        try {
            x = Workbench.held(held, gpu.alloc(task.op().input().bytes(shape, task.dtype())));
            yWords = (task.op().output().bytes(shape, task.dtype()) + 3) / 4;
            y = Workbench.held(held, gpu.alloc(yWords * 4));
            long wsWords = (wsBytes + 3) / 4;
            workspace = Workbench.held(held, gpu.alloc(wsWords == 0 ? 1 : wsWords * 4));
        } catch (RuntimeException e) {
            held.forEach(DeviceBuffer::close);
            throw e;
        }
    }

    @Override
    public DevicePointer x() {
        return x.pointer();
    }

    @Override
    public DevicePointer y() {
        return y.pointer();
    }

    @Override
    public Bindings bindings() {
        return Workbench.bindings(task, x.pointer(), y.pointer(), workspace.pointer());
    }

    @Override
    public void arm(Shape shape, long wsBytes) {
        gpu.fill(y.pointer(), Workbench.poisonY(task.dtype().y()), yWords);
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
        y.close();
        workspace.close();
    }
}
