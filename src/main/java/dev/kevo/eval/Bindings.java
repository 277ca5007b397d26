package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import java.util.Map;

/**
 * What one launch of a plan gets, by the names its header passes them by: the operator's tensors and the workspace
 * ({@code ws}) as device pointers (a null one for a tensor the shape's mask kind does not read), and its scalars as
 * floats.
 */
record Bindings(Map<String, Object> values) {

    Bindings {
        values = Map.copyOf(values);
        values.forEach((name, v) -> {
            if (!(v instanceof DevicePointer || v instanceof Float)) {
                throw new IllegalArgumentException(name + ": neither a device pointer nor a float: " + v);
            }
        });
    }

    /** @throws IllegalStateException for a name the contract parser would not have let through */
    Object get(String name) {
        Object v = values.get(name);
        if (v == null) {
            throw new IllegalStateException("nothing bound to '" + name + "' (have " + values.keySet() + ")");
        }
        return v;
    }

    /** A tensor's or the workspace's pointer. */
    DevicePointer pointer(String name) {
        if (!(get(name) instanceof DevicePointer p)) {
            throw new IllegalStateException("'" + name + "' is a scalar, not a buffer");
        }
        return p;
    }
}
