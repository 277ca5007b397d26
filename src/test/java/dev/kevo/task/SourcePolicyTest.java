package dev.kevo.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The source rules: tests of which compiler builds a file, and every file kevo ships held to all of them. */
class SourcePolicyTest {

    private static final String KERNEL = "extern \"C\" __global__ void k(float* y) { y[0] = %s; }\n";

    /**
     * Each macro tells NVRTC's build from nvcc's (or one toolkit, host compiler or flag set from another): a file
     * that reads it is refused in one line naming it, wherever it is read, since kevo judges NVRTC's build and the
     * export is built by nvcc (issue 41: a kernel honest only under NVRTC passed, exported, and wrote NaN).
     */
    @ParameterizedTest
    @ValueSource(strings = {"__CUDACC_RTC__", "__CUDACC_RTC_INT128__", "__NVCC__", "__NVCC_DIAG_PRAGMA_SUPPORT__",
            "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__", "__CUDACC_VER_BUILD__", "__CUDACC_DEBUG__",
            "__CUDACC_RDC__", "__CUDA_API_VER_MAJOR__", "__CUDART_API_VERSION", "CUDART_VERSION", "CUDA_VERSION",
            "__CUDA_ARCH_LIST__", "__CUDA_ARCH_FEAT_SM90_ALL", "__CUDA_FTZ", "__USE_FAST_MATH__", "__clang__",
            "__GNUC__", "_MSC_VER"})
    void aCompilerIdentityTestIsRefusedInOneLineNamingTheMacro(String macro) {
        // the macro is on line 1, 2 and 3 of these, as #ifdef, in #if defined(...) and as a value
        List<String> sources = List.of("#ifdef " + macro + "\n" + KERNEL.formatted("1.0f") + "#endif\n",
                "\n#if defined(" + macro + ") && 1\n#endif\n" + KERNEL.formatted("1.0f"),
                "\n\n" + KERNEL.formatted("(float)" + macro));
        for (int line = 1; line <= sources.size(); line++) {
            assertEquals(Optional.of("line " + line + ": tests which compiler builds it (" + macro + ")"),
                    SourcePolicy.violation(sources.get(line - 1)).map(v -> v.substring(0, v.indexOf(')') + 1)));
        }
    }

    /** What is the same for both compilers at one target, and what only looks like a test, stays allowed. */
    @Test
    void theArchitectureAndMentionsOutsideCodeAreAllowed() {
        assertEquals(Optional.empty(), SourcePolicy.violation("#if __CUDA_ARCH__ >= 900\n#endif\n#ifdef __CUDACC__\n"
                + "#endif\n" + KERNEL.formatted("1.0f")));
        // (a string literal is code to the rules: the name there is refused too, which costs no honest kernel)
        assertEquals(Optional.empty(), SourcePolicy.violation("// built by __NVCC__ or NVRTC alike\n"
                + "/* #ifdef __CUDACC_RTC__ */\n" + KERNEL.formatted("1.0f")));
        assertEquals(Optional.empty(), SourcePolicy.violation(KERNEL.formatted("MY__NVCC__X")));
    }

    /** A splice joins the macro's halves for the compiler, so it joins them for the rule too. */
    @Test
    void aSplicedMacroIsStillSeen() {
        assertEquals(Optional.of("line 1: tests which compiler builds it (__NVCC__)"),
                SourcePolicy.violation("#ifdef __NV\\\nCC__\n#endif\n").map(v -> v.substring(0, v.indexOf(':', 8))));
    }

    /**
     * Every kernel kevo ships (seeds, the reference kernel, baselines, the known-to-work files shown to models) and
     * every corpus file passes every source rule, except the corpus files that expect source-rejected, which break
     * one.
     */
    @Test
    void everyShippedKernelPassesAndTheCorpusGetsWhatItExpects() throws IOException {
        List<Path> files = new ArrayList<>(ContractParserTest.shippedKernels().toList());
        for (String dir : List.of("evaluator/adversarial", "src/main/resources/dev/kevo/agent/llm")) {
            try (Stream<Path> s = Files.list(TestFiles.root().resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".cu")).sorted().forEach(files::add);
            }
        }
        List<String> wrong = new ArrayList<>();
        for (Path file : files) {
            String source = Files.readString(file);
            boolean rejected = SourcePolicy.violation(source).isPresent();
            if (rejected != source.contains("// @expect source-rejected")) {
                wrong.add(file + ": " + SourcePolicy.violation(source).orElse("passes, but expects source-rejected"));
            }
        }
        assertTrue(files.size() > 50, "" + files.size());
        assertEquals(List.of(), wrong);
    }
}
