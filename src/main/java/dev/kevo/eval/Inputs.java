package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where one generated input of the operator lies, as kevo's own kernels and a launch read it: its row inputs (x; or y
 * and dy for a gradient, in the operator's order: {@link dev.kevo.task.op.Operator#rowInputs}), the tensors the shape's
 * mask kind reads (the key lengths, the additive mask; {@link DevicePointer#none()} where it reads none), a loss's
 * labels (one a row; none for an operator without them), the values of the operator's scalars for the case it was
 * generated for (none for an operator without any), and for a gradient where its inputs were derived from ({@link
 * Source}; null for a forward operator).
 */
record Inputs(List<DevicePointer> rowInputs, DevicePointer lengths, DevicePointer mask, DevicePointer labels,
              Map<String, Float> scalars, Source source) {

    /**
     * kevo's own memory a gradient operator's inputs are derived through, which no launch of a candidate is given: the
     * forward's input x, generated into scratch; the forward's row statistics of it, kept beside the input set, since
     * the comparison regenerates y (and dy) from them; and the scratch of the statistics' chunks.
     */
    record Source(DevicePointer x, DevicePointer stats, DevicePointer partial) {
    }

    Inputs {
        rowInputs = List.copyOf(rowInputs);
        scalars = Map.copyOf(scalars);
    }

    /** Inputs without a loss's labels. */
    Inputs(List<DevicePointer> rowInputs, DevicePointer lengths, DevicePointer mask, Map<String, Float> scalars,
           Source source) {
        this(rowInputs, lengths, mask, DevicePointer.none(), scalars, source);
    }

    /** A forward operator's input: x, the mask's tensors and the scalars. */
    Inputs(DevicePointer x, DevicePointer lengths, DevicePointer mask, Map<String, Float> scalars) {
        this(List.of(x), lengths, mask, DevicePointer.none(), scalars, null);
    }

    /** x alone: a plain shape of an operator without a mask or a scalar. */
    static Inputs of(DevicePointer x) {
        return new Inputs(x, DevicePointer.none(), DevicePointer.none(), Map.of());
    }

    /** The first row input: a forward operator's x (a gradient's y), which the floor's copies read too. */
    DevicePointer x() {
        return rowInputs.getFirst();
    }

    /**
     * Where the input tensor {@code t} lies for {@code shape}: a null pointer where the shape's mask kind reads none; a
     * row input by its place among the operator's {@code rowTensors}.
     */
    DevicePointer of(Tensor t, Shape shape, List<Tensor> rowTensors) {
        if (!t.present(shape)) {
            return DevicePointer.none();
        }
        return switch (t.extent()) {
            case ROWS_COLS -> rowInputs.get(rowTensors.indexOf(t));
            case BATCH -> lengths;
            case BATCH_QUERIES_KEYS -> mask;
            case ROWS -> labels;
            case ONE -> throw new IllegalStateException(t.name() + ": an output, not an input");
        };
    }

    /**
     * What a launch of {@code task}'s plan on these inputs gets by name: its input tensors (null pointers for those
     * the shape's mask kind does not read), its outputs, the workspace and its scalars' values.
     */
    Bindings bindings(Task task, Shape shape, Outputs outputs, DevicePointer ws) {
        Map<String, Object> values = new HashMap<>(scalars);
        List<Tensor> rowTensors = task.op().rowInputs();
        for (Tensor t : task.op().tensors()) {
            values.put(t.name(), t.role() == Tensor.Role.INPUT ? of(t, shape, rowTensors)
                    : t.extent() == Tensor.Extent.ONE ? outputs.reduced() : outputs.y());
        }
        values.put(dev.kevo.task.KernelFile.WORKSPACE, ws);
        return new Bindings(values);
    }

    /** The scores' scale the harness's reference applies: the scalar {@value Task#SCALE}, 1 without one. */
    float scale() {
        return scalars.getOrDefault(Task.SCALE, 1f);
    }
}
