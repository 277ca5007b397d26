package dev.kevo.export;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Disables tests that build or run generated code where a tool they need is missing, and says so on stderr so
 * that a green run cannot hide it: {@link NvccTest} needs nvcc, {@link HostCompilerTest} any C++ compiler,
 * {@link PythonTest} python3, {@link TorchTest} a Python with torch. A test annotated with several needs all of them.
 */
public final class ToolCondition implements ExecutionCondition {

    /** A tool, the annotation that asks for it, and the line printed where it is missing. */
    private record Need(Class<? extends Annotation> annotation, String kind, Supplier<Optional<?>> tool, String how) {
    }

    private static final List<Need> NEEDS = List.of(
            new Need(NvccTest.class, "nvcc", Toolchain::nvcc, "no nvcc (install the CUDA toolkit, or set $KEVO_NVCC)"),
            new Need(HostCompilerTest.class, "compiler", Toolchain::hostCompiler, "no C++ compiler (c++, g++ or nvcc; "
                    + "or set $CXX)"),
            new Need(PythonTest.class, "python", Toolchain::python, "no python3 (or set $KEVO_PYTHON)"),
            new Need(TorchTest.class, "torch", Toolchain::torch, "no Python with torch (set $KEVO_TORCH_PYTHON to "
                    + "one, e.g. a GPU host's torch venv; a CPU build of torch is enough)"));

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        List<Need> wanted = NEEDS.stream().filter(n -> annotated(context, n.annotation())).toList();
        List<String> using = new ArrayList<>();
        for (Need n : wanted) {
            Optional<?> tool = n.tool().get();
            if (tool.isEmpty()) {
                return skip("SKIPPED " + n.kind() + " test " + context.getDisplayName() + ": " + n.how());
            }
            using.add(tool.get().toString());
        }
        return ConditionEvaluationResult.enabled(using.isEmpty() ? "nothing needed" : "using " + String.join(", ", using));
    }

    private static boolean annotated(ExtensionContext context, Class<? extends Annotation> annotation) {
        return context.getElement().map(e -> e.isAnnotationPresent(annotation)).orElse(false)
                || context.getTestClass().map(c -> c.isAnnotationPresent(annotation)).orElse(false);
    }

    private static ConditionEvaluationResult skip(String message) {
        System.err.println(message);
        return ConditionEvaluationResult.disabled(message);
    }
}
