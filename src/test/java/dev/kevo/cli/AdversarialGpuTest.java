package dev.kevo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kevo.GpuTest;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.PhaseLimits;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.ContractException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import dev.kevo.worker.Supervisor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The whole adversarial corpus through one supervisor on a real GPU: every file gets the verdict its header
 * expects, a hang costs seconds, and a known-good seed evaluated right after each still passes. Files judged with
 * {@code --sanitize} are SanitizerGpuTest's.
 */
@GpuTest
class AdversarialGpuTest {

    @Test
    void everyHostileFileGetsItsExpectedVerdictAndTheSupervisorRecovers() throws IOException {
        Path root = TestFiles.root();
        // The quick suite and the shapes some files aim at: 4096x4096 (the launch skippers), 32x50257 (the hang on
        // one shape), one row longer than 100000 (wrong_plan_one_shape.cu, tiny_outputs.cu, one_shape_near_zero.cu)
        // and the standard suite's 65536 rows, which many_rows_wrap.cu's held-out shapes must go past.
        Suite quick = SuiteFile.load(root.resolve("evaluator/suites/quick.yaml"));
        List<Shape> shapes = new ArrayList<>(quick.shapes());
        shapes.add(new Shape(4096, 4096));
        shapes.add(new Shape(32, 50257));
        shapes.add(new Shape(1, 1_000_000));
        shapes.add(new Shape(65536, 128));
        Suite suite = new Suite("quick+long", "", shapes);
        EvalSettings base = EvalSettings.load(root.resolve("config/eval.yaml"));
        EvalSettings settings = base.toBuilder().limits(PhaseLimits.builder().startupSeconds(120).compileSeconds(15)
                .checkSeconds(15).timingSeconds(60).build()).build();
        List<Path> corpus = Corpus.files();
        assertFalse(corpus.isEmpty());
        java.util.Map<String, List<Path>> byOp = new java.util.TreeMap<>();
        for (Path path : corpus) {
            byOp.computeIfAbsent(Corpus.op(Files.readString(path)), op -> new ArrayList<>()).add(path);
        }
        List<String> wrong = new ArrayList<>();
        judge(byOp.remove("softmax"), suite, ContractParser.read(root.resolve("evaluator/baselines/block_two_pass.cu")),
                ContractParser.read(root.resolve("seeds/online.cu")), settings, wrong);
        // Another operator's files (the masked softmax's semantics) as that operator, on its quick suite.
        byOp.forEach((op, files) -> {
            Corpus.OtherOperator how = Corpus.OTHER_OPERATORS.get(op);
            judge(files, SuiteFile.load(root.resolve("evaluator/suites/" + how.quickSuite() + ".yaml")),
                    ContractParser.read(root.resolve("evaluator/baselines/" + how.baseline() + ".cu")),
                    ContractParser.read(root.resolve(how.goodSeed())), settings.toBuilder().op(op).build(), wrong);
        });
        assertEquals(List.of(), wrong);
    }

    /** {@code files} through one supervisor, a known-good seed judged after each; what went wrong into {@code wrong}. */
    private static void judge(List<Path> files, Suite suite, KernelFile baseline, KernelFile good,
                              EvalSettings settings, List<String> wrong) {
        try (Supervisor supervisor = Workers.supervisor(Optional.of(0), Optional.empty(), suite, baseline, settings,
                null, 0)) {
            for (Path path : files) {
                KernelFile hostile;
                try {
                    hostile = ContractParser.read(path);
                } catch (ContractException e) {
                    // Rejected before any GPU work, as kevo eval rejects it: the verdict is the contract error.
                    Verdict expected = Corpus.expected(readString(path));
                    if (expected != Verdict.CONTRACT_ERROR) {
                        wrong.add(path.getFileName() + ": expected " + expected.id() + ", got contract-error ("
                                + e.getMessage() + ")");
                    }
                    continue;
                }
                if (Corpus.evalOptions(hostile.source()).contains("--sanitize")) {
                    continue;
                }
                long start = System.nanoTime();
                boolean atScale = Corpus.evalOptions(hostile.source()).contains("--at-scale");
                CandidateResult result = supervisor.evaluate(hostile, 11, Evaluator.Run.plain().withAtScale(atScale));
                double seconds = (System.nanoTime() - start) / 1e9;
                if (result.verdict() == Verdict.KERNEL_TIMEOUT && seconds > 10) {
                    wrong.add(hostile.name() + ": the hang took " + seconds + " s to end (" + result.detail() + ")");
                }
                Verdict expected = Corpus.expected(hostile.source());
                if (result.verdict() != expected) {
                    wrong.add(hostile.name() + ": expected " + expected.id() + ", got " + result.verdict().id()
                            + " (" + result.detail() + ")");
                }
                CandidateResult after = supervisor.evaluate(good, 12, Evaluator.Run.plain());
                if (!after.passed()) {
                    wrong.add(good.name() + " after " + hostile.name() + ": " + after.verdict().id() + " "
                            + after.detail());
                }
            }
        }
    }

    private static String readString(Path path) {
        try {
            return Files.readString(path);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
