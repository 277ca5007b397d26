package dev.kevo.export;

import dev.kevo.task.op.Operator;
import java.util.Map;
import java.util.Optional;

/**
 * The torch function a torch package's example checks the operator against, in float64: torch's own name for the
 * same operator over the last dimension, {@code f(inputs..., dim=-1)}. An operator torch has no single function for
 * has none here, and exports to C++ only, whose example checks it against kevo's own reference.
 */
final class TorchReference {
    /** Operator id to torch function; each takes its input and {@code dim} and computes what kevo's reference does. */
    private static final Map<String, String> FUNCTIONS = Map.of(
            "softmax", "torch.softmax",
            "log_softmax", "torch.log_softmax");

    private TorchReference() {
    }

    static Optional<String> of(Operator op) {
        return Optional.ofNullable(FUNCTIONS.get(op.id()));
    }
}
