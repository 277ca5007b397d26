package dev.kevo;

import dev.kevo.cuda.Gpu;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Disables GPU tests where no device exists, and says so on stderr so a green run cannot hide it. */
public final class GpuCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String reason = Gpu.unavailableReason();
        if (reason.isEmpty()) {
            return ConditionEvaluationResult.enabled("CUDA device present");
        }
        String message = "SKIPPED gpu test " + context.getDisplayName() + ": " + reason;
        System.err.println(message);
        return ConditionEvaluationResult.disabled(message);
    }
}
