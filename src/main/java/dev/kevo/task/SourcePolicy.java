package dev.kevo.task;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * What a mutant's source may not contain, checked before NVRTC sees it: host-side code NVRTC cannot compile
 * or that would escape the plan (launches from device code, host runtime calls, other headers), and tests of which
 * compiler builds it (kevo judges NVRTC's build; an export is built by nvcc). A model that
 * writes these gets one line saying which rule and where, rather than a wall of compiler errors.
 */
public final class SourcePolicy {

    private record Rule(Pattern pattern, String why) {
    }

    /**
     * Macros whose value, or whose being defined at all, tells NVRTC's build of a file from nvcc's (or one toolkit's,
     * flag's or host compiler's from another's): NVRTC alone defines {@code __CUDACC_RTC__} (and its INT128 and
     * FLOAT128 variants); nvcc alone {@code __NVCC__}, {@code __NVCC_DIAG_PRAGMA_SUPPORT__}, {@code __CUDA_ARCH_LIST__}
     * and, through the {@code cuda_runtime.h} it includes implicitly, {@code CUDART_VERSION}, {@code CUDA_VERSION},
     * {@code __CUDA_RUNTIME_H__} and {@code __CUDART_API_VERSION}; nvcc's device pass defines the host compiler's
     * identity ({@code __GNUC__}, {@code __clang__}, {@code _MSC_VER}, {@code __OPTIMIZE__}); the versions
     * ({@code __CUDACC_VER_MAJOR__}, {@code __CUDA_API_VER_MAJOR__}, ...) differ between kevo's NVRTC and the user's
     * nvcc; and mode and flag macros ({@code __CUDACC_DEBUG__}, {@code __CUDACC_RDC__}, {@code __CUDACC_EWP__},
     * {@code __CUDACC_RELAXED_CONSTEXPR__}, {@code __CUDACC_EXTENDED_LAMBDA__}, {@code __CUDA_PREC_DIV},
     * {@code __CUDA_PREC_SQRT}, {@code __CUDA_FTZ}, {@code __USE_FAST_MATH__}, the arch-specific
     * {@code __CUDA_ARCH_FEAT_*}, {@code __CUDA_ARCH_SPECIFIC__}, {@code __CUDA_ARCH_FAMILY_SPECIFIC__}) depend on
     * how the package is built. Any use counts, not only in {@code #if}: a value copied into a variable branches just
     * as well. {@code __CUDA_ARCH__} and {@code __CUDACC__} are the same for both at one target, and stay allowed.
     * A trailing {@code *} stands for any identifier characters: the whole family is meant. Public so that a model's
     * prompt lists exactly these.
     */
    public static final List<String> COMPILER_IDENTITY_MACROS = List.of("__CUDACC_RTC*", "__NVCC*", "__CUDACC_VER*",
            "__CUDACC_DEBUG__", "__CUDACC_RDC__", "__CUDACC_EWP__", "__CUDACC_RELAXED_CONSTEXPR__",
            "__CUDACC_EXTENDED_LAMBDA__", "__CUDA_API_VER*", "__CUDART_API_VER*", "CUDART_VERSION", "CUDA_VERSION",
            "__CUDA_RUNTIME_H__", "__CUDA_ARCH_LIST__", "__CUDA_ARCH_FEAT*", "__CUDA_ARCH_SPECIFIC*",
            "__CUDA_ARCH_FAMILY_SPECIFIC*", "__CUDA_PREC_DIV", "__CUDA_PREC_SQRT", "__CUDA_FTZ", "__USE_FAST_MATH__",
            "__clang*", "__GNUC*", "_MSC_VER", "__NVCOMPILER*", "__OPTIMIZE*");

    /** {@link #COMPILER_IDENTITY_MACROS} as one pattern: a trailing {@code *} stands for any identifier characters. */
    static final Pattern COMPILER_IDENTITY = Pattern.compile(COMPILER_IDENTITY_MACROS.stream()
            .map(m -> m.endsWith("*") ? Pattern.quote(m.substring(0, m.length() - 1)) + "\\w*" : Pattern.quote(m))
            .collect(Collectors.joining("|", "\\b(?:", ")\\b")));

    private static final List<Rule> RULES = List.of(
            new Rule(Pattern.compile("#[ \\t]*include[ \\t]*[<\"](?!kevo\\.h\")[^>\"\\n]*[>\"]"),
                    "includes a header other than \"kevo.h\" (NVRTC has no C or C++ standard headers)"),
            new Rule(Pattern.compile("\\bint\\s+main\\s*\\("), "defines main(): a kernel file holds device code only"),
            new Rule(Pattern.compile("__host__"), "declares __host__ code: a kernel file holds device code only"),
            new Rule(Pattern.compile("<<<"), "launches a kernel from device code: every launch belongs in the plan"),
            new Rule(Pattern.compile("\\bcuda(Malloc|Free|Memcpy|Memset|LaunchKernel|Stream\\w*|Event\\w*|DeviceSynchronize|"
                    + "GraphLaunch)\\s*\\("), "calls the CUDA runtime: memory and launches are kevo's, declared in the plan"),
            new Rule(COMPILER_IDENTITY, "tests which compiler builds it ({}): kevo judges the NVRTC build, and kevo "
                    + "export hands the same source to nvcc, so the code must not depend on which one (__CUDA_ARCH__ "
                    + "may be tested: it is the same for both)"));

    private SourcePolicy() {
    }

    /**
     * What each rule forbids, as {@link #violation} words it ({@code {}} standing for the name found), for a model's
     * prompt.
     */
    public static List<String> rules() {
        return RULES.stream().map(Rule::why).toList();
    }

    /** The first violation as {@code line N: why}, or empty. Comments are ignored ({@link SourceCode}). */
    public static Optional<String> violation(String source) {
        String code = SourceCode.withoutComments(source);
        for (Rule rule : RULES) {
            Matcher m = rule.pattern().matcher(code);
            if (m.find()) {
                return Optional.of("line " + lineOf(code, m.start()) + ": " + rule.why().replace("{}", m.group()));
            }
        }
        return Optional.empty();
    }

    /** 1-based line of a character offset, for file:line messages. */
    static int lineOf(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) {
            if (text.charAt(i) == '\n') {
                line++;
            }
        }
        return line;
    }
}
