package dev.kevo.task;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a mutant's source may not contain, checked before NVRTC sees it: host-side code NVRTC cannot compile
 * or that would escape the plan (launches from device code, host runtime calls, other headers). A model that
 * writes these gets one line saying which rule and where, rather than a wall of compiler errors.
 */
public final class SourcePolicy {

    private record Rule(Pattern pattern, String why) {
    }

    private static final List<Rule> RULES = List.of(
            new Rule(Pattern.compile("#[ \\t]*include[ \\t]*[<\"](?!kevo\\.h\")[^>\"\\n]*[>\"]"),
                    "includes a header other than \"kevo.h\" (NVRTC has no C or C++ standard headers)"),
            new Rule(Pattern.compile("\\bint\\s+main\\s*\\("), "defines main(): a kernel file holds device code only"),
            new Rule(Pattern.compile("__host__"), "declares __host__ code: a kernel file holds device code only"),
            new Rule(Pattern.compile("<<<"), "launches a kernel from device code: every launch belongs in the plan"),
            new Rule(Pattern.compile("\\bcuda(Malloc|Free|Memcpy|Memset|LaunchKernel|Stream\\w*|Event\\w*|DeviceSynchronize|"
                    + "GraphLaunch)\\s*\\("), "calls the CUDA runtime: memory and launches are kevo's, declared in the plan"));

    private SourcePolicy() {
    }

    /** The first violation as {@code line N: why}, or empty. Comments are ignored ({@link SourceCode}). */
    public static Optional<String> violation(String source) {
        String code = SourceCode.withoutComments(source);
        for (Rule rule : RULES) {
            Matcher m = rule.pattern().matcher(code);
            if (m.find()) {
                return Optional.of("line " + lineOf(code, m.start()) + ": " + rule.why());
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
