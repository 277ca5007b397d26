package dev.kevo.cli;

import dev.kevo.TestFiles;
import dev.kevo.data.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The adversarial corpus (evaluator/adversarial/) as its header lines describe each file. */
final class Corpus {
    static final Pattern EXPECT = Pattern.compile("^// @expect (\\S+)\\s*$", Pattern.MULTILINE);
    static final Pattern EVAL = Pattern.compile("^// @eval (.+)$", Pattern.MULTILINE);
    /** The options a corpus file may ask its evaluation for. */
    static final List<String> OPTIONS = List.of("--at-scale", "--sanitize");
    private static final Pattern OP = Pattern.compile("\"op\"\\s*:\\s*\"(\\w+)\"");

    /**
     * How the corpus judges a file of an operator other than softmax: as that operator, on its suite (the GPU test's
     * smaller one, and bench/adversarial.py's), against its own baseline, with its known-good seed judged after each
     * file. The same as bench/adversarial.py's table.
     */
    record OtherOperator(String quickSuite, String suite, String baseline, String goodSeed) {
    }

    static final java.util.Map<String, OtherOperator> OTHER_OPERATORS = java.util.Map.of(
            "masked_softmax", new OtherOperator("attention-quick", "attention", "masked_softmax_two_pass",
                    "seeds/masked_softmax/online.cu"),
            "softmax_backward", new OtherOperator("quick", "standard", "softmax_backward_block",
                    "seeds/softmax_backward/block_dot.cu"),
            "log_softmax_backward", new OtherOperator("quick", "standard", "log_softmax_backward_block",
                    "seeds/log_softmax_backward/block_dot.cu"),
            "cross_entropy", new OtherOperator("quick", "standard", "cross_entropy_two_pass",
                    "seeds/cross_entropy/online.cu"));

    private Corpus() {
    }

    static List<Path> files() {
        try (Stream<Path> files = Files.list(TestFiles.root().resolve("evaluator/adversarial"))) {
            return files.filter(p -> p.toString().endsWith(".cu")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Verdict expected(String source) {
        Matcher m = EXPECT.matcher(source);
        if (!m.find()) {
            throw new IllegalStateException("no // @expect line");
        }
        return Stream.of(Verdict.values()).filter(v -> v.id().equals(m.group(1))).findFirst()
                .orElseThrow(() -> new IllegalStateException("// @expect " + m.group(1) + ": no such verdict"));
    }

    /** The operator its header names ({@code op}), softmax where it names none. */
    static String op(String source) {
        int end = source.indexOf("*/");
        Matcher m = OP.matcher(end < 0 ? source : source.substring(0, end));
        return m.find() ? m.group(1) : "softmax";
    }

    /** The options of its {@code // @eval} line, none without one. */
    static List<String> evalOptions(String source) {
        Matcher m = EVAL.matcher(source);
        return m.find() ? Arrays.asList(m.group(1).trim().split("\\s+")) : List.of();
    }
}
