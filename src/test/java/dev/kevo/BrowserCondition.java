package dev.kevo;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables browser tests where Chromium or its driver is missing, and says so on stderr so a green run cannot
 * hide it. Debian's packages by default; $KEVO_CHROMIUM and $KEVO_CHROMEDRIVER name others.
 */
public final class BrowserCondition implements ExecutionCondition {

    public static Optional<Path> chromium() {
        return find("KEVO_CHROMIUM", List.of("/usr/bin/chromium", "/usr/bin/chromium-browser"));
    }

    public static Optional<Path> chromedriver() {
        return find("KEVO_CHROMEDRIVER", List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"));
    }

    private static Optional<Path> find(String variable, List<String> candidates) {
        String named = System.getenv(variable);
        List<String> paths = named != null && !named.isBlank() ? List.of(named) : candidates;
        return paths.stream().map(Path::of).filter(Files::isExecutable).findFirst();
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        String missing = chromium().isEmpty() ? "no chromium" : chromedriver().isEmpty() ? "no chromedriver" : "";
        if (missing.isEmpty()) {
            return ConditionEvaluationResult.enabled("chromium and chromedriver present");
        }
        String message = "SKIPPED browser test " + context.getDisplayName() + ": " + missing
                + " (apt-get install chromium chromium-driver, or set $KEVO_CHROMIUM and $KEVO_CHROMEDRIVER)";
        System.err.println(message);
        return ConditionEvaluationResult.disabled(message);
    }
}
