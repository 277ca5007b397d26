package dev.kevo.agent;

import dev.kevo.data.DeviceInfo;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import java.util.List;
import java.util.Objects;

/**
 * What stays the same for a whole campaign and an agent may tell a model: the GPU, the suite, the task (operator and
 * dtypes) and the baseline.
 *
 * @param device null when the campaign runs without a GPU (tests)
 * @param task the operator every kernel must implement, and the dtypes of its tensors
 * @param baseline what speedups are over, as users name it: {@code cuDNN 9.14.0} or {@code block_two_pass}
 */
public record TaskContext(DeviceInfo device, String suite, List<Shape> shapes, Task task, String baseline) {
    public TaskContext {
        shapes = List.copyOf(shapes);
        Objects.requireNonNull(task, "task");
    }

    /** A softmax campaign in {@code dtype}. */
    public TaskContext(DeviceInfo device, String suite, List<Shape> shapes, Precision dtype, String baseline) {
        this(device, suite, shapes, Task.softmax(dtype), baseline);
    }

    /** The dtypes of x and y every kernel must implement. */
    public Precision dtype() {
        return task.dtype();
    }
}
