package dev.kevo;

import dev.kevo.cuda.NvrtcLocator;
import java.lang.foreign.Arena;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables tests that compile with NVRTC where no NVRTC library loads, and says so on stderr so a green run cannot
 * hide it. With KEVO_REQUIRE_NVRTC=1 (CI, which installs NVRTC) nothing is skipped: a missing library fails there.
 */
public final class NvrtcCondition implements ExecutionCondition {

    static final String REQUIRE = "KEVO_REQUIRE_NVRTC";

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if ("1".equals(System.getenv(REQUIRE))) {
            return ConditionEvaluationResult.enabled(REQUIRE + "=1: NVRTC must be there");
        }
        try (Arena arena = Arena.ofConfined()) {
            NvrtcLocator.Found found = new NvrtcLocator(System.getenv()).load(Optional.empty(), arena);
            return ConditionEvaluationResult.enabled("NVRTC at " + found.location());
        } catch (KevoException e) {
            String reason = e.kind() == KevoException.Kind.ENVIRONMENT
                    ? "no NVRTC library (apt-get install libnvrtc11.2, from Debian's non-free, or a CUDA toolkit; "
                    + "or set KEVO_NVRTC)"
                    : e.getMessage();
            String message = "SKIPPED nvrtc test " + context.getDisplayName() + ": " + reason;
            System.err.println(message);
            return ConditionEvaluationResult.disabled(message);
        }
    }
}
