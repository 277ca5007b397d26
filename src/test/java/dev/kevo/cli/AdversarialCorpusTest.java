package dev.kevo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.TestFiles;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Without a GPU: every corpus file says what kevo must answer in the form its README describes, one known verdict,
 * one reason, known evaluation options, and the README's table agrees (AdversarialGpuTest checks the verdicts).
 */
class AdversarialCorpusTest {
    private static final Pattern TICKED = Pattern.compile("`([^`]+)`");

    /** File name to the verdict of its row in the README's table of files. */
    private static Map<String, String> readmeRows() throws IOException {
        Map<String, String> rows = new HashMap<>();
        for (String line : Files.readAllLines(TestFiles.root().resolve("evaluator/adversarial/README.md"))) {
            String[] cells = line.split("\\|");
            if (!line.startsWith("| `") || cells.length < 5) {
                continue;
            }
            Matcher verdict = TICKED.matcher(cells[3]);
            if (!verdict.find()) {
                continue;
            }
            Matcher file = TICKED.matcher(cells[1]);
            while (file.find()) {
                rows.put(file.group(1), verdict.group(1));
            }
        }
        return rows;
    }

    @Test
    void everyFileStatesOneVerdictWhyAndKnownOptionsAndTheReadmeAgrees() throws IOException {
        Map<String, String> readme = readmeRows();
        List<String> wrong = new ArrayList<>();
        List<Path> files = Corpus.files();
        assertFalse(files.isEmpty());
        for (Path path : files) {
            String name = path.getFileName().toString();
            String source = Files.readString(path);
            if (!parsesAsExpected(path, source)) {
                wrong.add(name + ": its header " + (source.contains("// @expect contract-error")
                        ? "parses, but it expects contract-error" : "does not parse"));
            }
            long expects = Corpus.EXPECT.matcher(source).results().count();
            long whys = source.lines().filter(l -> l.startsWith("// why: ") && l.length() > 20).count();
            long evals = Corpus.EVAL.matcher(source).results().count();
            if (expects != 1 || whys != 1 || evals > 1) {
                wrong.add(name + ": " + expects + " @expect, " + whys + " why, " + evals + " @eval lines");
                continue;
            }
            Verdict verdict;
            try {
                verdict = Corpus.expected(source);
            } catch (IllegalStateException e) {
                wrong.add(name + ": " + e.getMessage());
                continue;
            }
            Corpus.evalOptions(source).stream().filter(o -> !Corpus.OPTIONS.contains(o))
                    .forEach(o -> wrong.add(name + ": // @eval " + o + ": not an option the corpus knows"));
            if (!verdict.id().equals(readme.get(name))) {
                wrong.add(name + ": expects " + verdict.id() + ", the README's table says " + readme.get(name));
            }
        }
        readme.keySet().stream().filter(f -> files.stream().noneMatch(p -> p.getFileName().toString().equals(f)))
                .forEach(f -> wrong.add("README row for " + f + ", which is not in the corpus"));
        assertEquals(List.of(), wrong);
    }

    /**
     * A file that expects contract-error must be refused when its header is read, or by its kernels' parameter types
     * (labels read as int32, caught from the source before anything runs); every other file must parse and declare
     * what its operator's tensors hold.
     */
    private static boolean parsesAsExpected(Path path, String source) {
        try {
            boolean typed = dev.kevo.task.ParameterTypes.violation(ContractParser.read(path),
                    dev.kevo.data.Precision.FP32).isEmpty();
            return typed != source.contains("// @expect " + Verdict.CONTRACT_ERROR.id());
        } catch (ContractException e) {
            return source.contains("// @expect " + Verdict.CONTRACT_ERROR.id());
        }
    }

    @Test
    void theShapeAttacksAskForWhatCatchesThem() throws IOException {
        Path corpus = TestFiles.root().resolve("evaluator/adversarial");
        String fixed = Files.readString(corpus.resolve("fixed_128_cols.cu"));
        String offsets = Files.readString(corpus.resolve("int32_offsets.cu"));
        assertEquals(List.of(), Corpus.evalOptions(fixed), "the fresh shapes of every evaluation catch it");
        assertEquals(List.of("--at-scale"), Corpus.evalOptions(offsets), "only a shape past 2^31 elements does");
        assertTrue(Corpus.expected(offsets) == Verdict.UNWRITTEN_OUTPUT
                && Corpus.expected(fixed) == Verdict.OUT_OF_BOUNDS_WRITE);
    }

    /**
     * A file of another operator names one the corpus knows how to judge (suite, baseline, known-good seed), each of
     * which exists; the masked softmax's semantics have their three files, the backward's their two.
     */
    @Test
    void everyFileOfAnotherOperatorIsOneTheCorpusKnowsHowToJudge() throws IOException {
        List<String> masked = new ArrayList<>();
        List<String> backward = new ArrayList<>();
        for (Path path : Corpus.files()) {
            String op = Corpus.op(Files.readString(path));
            if (op.equals("softmax")) {
                continue;
            }
            Corpus.OtherOperator how = Corpus.OTHER_OPERATORS.get(op);
            assertTrue(how != null, path.getFileName() + ": the corpus does not know how to judge " + op);
            for (String file : List.of("evaluator/suites/" + how.quickSuite() + ".yaml",
                    "evaluator/suites/" + how.suite() + ".yaml", "evaluator/baselines/" + how.baseline() + ".cu",
                    how.goodSeed())) {
                assertTrue(Files.isRegularFile(TestFiles.root().resolve(file)), file);
            }
            assertEquals(op, ContractParser.read(path).op().id());
            if (op.equals("masked_softmax")) {
                masked.add(path.getFileName().toString());
            } else if (op.endsWith("_backward")) {
                backward.add(path.getFileName().toString());
            }
        }
        assertEquals(List.of("masked_causal_top_left.cu", "masked_fully_masked_flat.cu", "masked_scale_after_max.cu"),
                masked, "wrong only on fully masked rows, ignoring the bottom-right alignment, scaling after the max");
        assertEquals(List.of("backward_dy_mean.cu", "backward_log_times_y.cu"), backward,
                "dy's mean for the dot product, y for exp(y)");
        assertEquals("softmax", Corpus.op(Files.readString(TestFiles.root().resolve("evaluator/adversarial/trap.cu"))));
    }
}
