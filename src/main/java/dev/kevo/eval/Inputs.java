package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import java.util.HashMap;
import java.util.Map;

/**
 * Where one generated input of the operator lies, as kevo's own kernels and a launch read it: x, and the tensors the
 * shape's mask kind reads (the key lengths, the additive mask; {@link DevicePointer#none()} where it reads none), with
 * the values of the operator's scalars for the case it was generated for (none for an operator without any).
 */
record Inputs(DevicePointer x, DevicePointer lengths, DevicePointer mask, Map<String, Float> scalars) {

    Inputs {
        scalars = Map.copyOf(scalars);
    }

    /** x alone: a plain shape of an operator without a mask or a scalar. */
    static Inputs of(DevicePointer x) {
        return new Inputs(x, DevicePointer.none(), DevicePointer.none(), Map.of());
    }

    /** Where the input tensor {@code t} lies for {@code shape}: a null pointer where the shape's mask kind reads none. */
    DevicePointer of(Tensor t, Shape shape) {
        if (!t.present(shape)) {
            return DevicePointer.none();
        }
        return switch (t.extent()) {
            case ROWS_COLS -> x;
            case BATCH -> lengths;
            case BATCH_QUERIES_KEYS -> mask;
        };
    }

    /**
     * What a launch of {@code task}'s plan on these inputs gets by name: its input tensors (null pointers for those
     * the shape's mask kind does not read), its output {@code y}, the workspace and its scalars' values.
     */
    Bindings bindings(Task task, Shape shape, DevicePointer y, DevicePointer ws) {
        Map<String, Object> values = new HashMap<>(scalars);
        for (Tensor t : task.op().tensors()) {
            values.put(t.name(), t.role() == Tensor.Role.OUTPUT ? y : of(t, shape));
        }
        values.put(dev.kevo.task.KernelFile.WORKSPACE, ws);
        return new Bindings(values);
    }

    /** The scores' scale the harness's reference applies: the scalar {@value Task#SCALE}, 1 without one. */
    float scale() {
        return scalars.getOrDefault(Task.SCALE, 1f);
    }
}
