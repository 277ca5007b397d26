package dev.kevo.agent;

import dev.kevo.data.DeviceInfo;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import java.util.List;
import java.util.Objects;

/**
 * What stays the same for a whole campaign and an agent may tell a model: the GPU, the suite, the task (operator and
 * dtypes), the baseline and how candidates are judged.
 *
 * @param device null when the campaign runs without a GPU (tests)
 * @param task the operator every kernel must implement, and the dtypes of its tensors
 * @param baseline what speedups are over, as users name it: {@code cuDNN 9.14.0} or {@code block_two_pass}
 * @param settings how candidates are judged (tolerances, timing, shapes beyond the suite), which a model's prompt
 *     states
 */
public record TaskContext(DeviceInfo device, String suite, List<Shape> shapes, Task task, String baseline,
                          EvalSettings settings) {
    public TaskContext {
        shapes = List.copyOf(shapes);
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(settings, "settings");
    }

    /**
     * A context judged by the default settings (config/eval.yaml as shipped): what a caller that does not hand its
     * settings on gets.
     */
    public TaskContext(DeviceInfo device, String suite, List<Shape> shapes, Task task, String baseline) {
        this(device, suite, shapes, task, baseline, EvalSettings.defaults());
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
