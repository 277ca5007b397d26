package dev.kevo.agent;

import dev.kevo.data.DeviceInfo;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import java.util.List;

/**
 * What stays the same for a whole campaign and an agent may tell a model: the GPU, the suite, the dtypes and the
 * baseline.
 *
 * @param device null when the campaign runs without a GPU (tests)
 * @param dtype the dtypes of x and y every kernel must implement
 * @param baseline what speedups are over, as users name it: {@code cuDNN 9.14.0} or {@code block_two_pass}
 */
public record TaskContext(DeviceInfo device, String suite, List<Shape> shapes, Precision dtype, String baseline) {
    public TaskContext {
        shapes = List.copyOf(shapes);
    }
}
