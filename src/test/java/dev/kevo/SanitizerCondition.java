package dev.kevo;

import dev.kevo.cuda.Gpu;
import dev.kevo.worker.ComputeSanitizer;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables sanitizer tests where compute-sanitizer or a GPU is missing, and says so on stderr so a green run cannot
 * hide it. The sanitizer is looked for where kevo looks ({@code $KEVO_COMPUTE_SANITIZER}, the PATH, the CUDA homes).
 */
public final class SanitizerCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Optional<ComputeSanitizer> found = ComputeSanitizer.find(System.getenv());
        String reason = found.isEmpty() ? "no compute-sanitizer (" + ComputeSanitizer.INSTALL_HINT + ")"
                : Gpu.unavailableReason();
        if (reason.isEmpty()) {
            return ConditionEvaluationResult.enabled("compute-sanitizer at " + found.get().executable());
        }
        String message = "SKIPPED sanitizer test " + context.getDisplayName() + ": " + reason;
        System.err.println(message);
        return ConditionEvaluationResult.disabled(message);
    }
}
