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

    /** The options of its {@code // @eval} line, none without one. */
    static List<String> evalOptions(String source) {
        Matcher m = EVAL.matcher(source);
        return m.find() ? Arrays.asList(m.group(1).trim().split("\\s+")) : List.of();
    }
}
