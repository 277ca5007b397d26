package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import java.util.Map;

/**
 * The device buffers one launch of a plan gets, by the names its header passes them by: the operator's tensors and
 * the workspace ({@code ws}).
 */
record Bindings(Map<String, DevicePointer> buffers) {

    Bindings {
        buffers = Map.copyOf(buffers);
    }

    /** @throws IllegalStateException for a name the contract parser would not have let through */
    DevicePointer get(String name) {
        DevicePointer p = buffers.get(name);
        if (p == null) {
            throw new IllegalStateException("no buffer '" + name + "' bound (have " + buffers.keySet() + ")");
        }
        return p;
    }
}
