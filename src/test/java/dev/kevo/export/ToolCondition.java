package dev.kevo.export;

import java.util.Optional;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables tests that build generated code where the compiler they need is missing, and says so on stderr so
 * that a green run cannot hide it: {@link NvccTest} needs nvcc, {@link HostCompilerTest} any C++ compiler.
 */
public final class ToolCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        boolean needsNvcc = context.getElement().map(e -> e.isAnnotationPresent(NvccTest.class)).orElse(false)
                || context.getTestClass().map(c -> c.isAnnotationPresent(NvccTest.class)).orElse(false);
        Optional<Path> tool = needsNvcc ? Toolchain.nvcc() : Toolchain.hostCompiler();
        if (tool.isPresent()) {
            return ConditionEvaluationResult.enabled("using " + tool.get());
        }
        String message = needsNvcc
                ? "SKIPPED nvcc test " + context.getDisplayName() + ": no nvcc (install the CUDA toolkit, or set $KEVO_NVCC)"
                : "SKIPPED compiler test " + context.getDisplayName() + ": no C++ compiler (c++, g++ or nvcc; or set $CXX)";
        System.err.println(message);
        return ConditionEvaluationResult.disabled(message);
    }
}
