package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.GpuTest;
import dev.kevo.TestFiles;
import dev.kevo.config.SuiteFile;
import dev.kevo.cuda.CompileCache;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.ShapeRegime;
import dev.kevo.data.ShapeResult;
import dev.kevo.data.Verdict;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The shapes beyond the suite on a real GPU: a kernel written for the suite's shapes fails on the fresh ones with
 * the shape named, a replayed secret draws the same shapes, and the at-scale check catches 32-bit offsets.
 */
@GpuTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BeyondSuiteGpuTest {
    private static final Path CORPUS = TestFiles.root().resolve("evaluator/adversarial");
    private Gpu gpu;
    private Evaluator evaluator;
    private Suite suite;

    @BeforeAll
    void open() {
        gpu = Gpu.open(0);
        suite = SuiteFile.load(TestFiles.root().resolve("evaluator/suites/quick.yaml"));
        KernelFile baseline = ContractParser.read(TestFiles.root().resolve("evaluator/baselines/block_two_pass.cu"));
        evaluator = new Evaluator(gpu, Nvrtc.load(Optional.empty()), CompileCache.none(), suite,
                new Baseline.File(baseline), EvalSettings.load(TestFiles.root().resolve("config/eval.yaml")));
    }

    @AfterAll
    void close() {
        if (evaluator != null) {
            evaluator.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }

    private CandidateResult judge(KernelFile file, long secret, boolean atScale) {
        return evaluator.evaluate(file, 3, Optional.of(secret), false, Phase.Listener.NONE, Optional.empty(), atScale);
    }

    private List<ShapeDraw.Drawn> drawn(long secret) {
        return ShapeDraw.fresh(secret, List.of(ShapeRegime.values()), ShapeDraw.Bounds.of(suite.shapes()));
    }

    @Test
    void aKernelForExactly128ColumnsFailsOnTheFreshNarrowShapeNamingIt() {
        KernelFile fixed = ContractParser.read(CORPUS.resolve("fixed_128_cols.cu"));
        for (long secret : new long[] {11, 12}) {
            CandidateResult r = judge(fixed, secret, false);
            Shape narrow = drawn(secret).getFirst().shape();
            assertEquals(Verdict.OUT_OF_BOUNDS_WRITE, r.verdict(), r.detail());
            assertTrue(r.detail().startsWith("fresh shape " + narrow + ": case "), r.detail());
            ShapeResult first = r.freshShapes().getFirst();
            assertEquals(narrow.toString(), first.shape());
            assertEquals(ShapeRegime.NARROW, first.regime());
            assertEquals(Verdict.OUT_OF_BOUNDS_WRITE, first.verdict());
            assertTrue(r.shapes().stream().allMatch(s -> s.verdict().passed() && s.candidate() == null),
                    "every suite shape passed, and nothing was timed");
            assertNull(r.score());
        }
    }

    @Test
    void aPlanThatDoesNotCoverAFreshShapeIsAPlanErrorNamingIt() throws IOException {
        // wrong_plan_one_shape.cu's correct kernel, with plans for every row of 128 columns or more.
        String source = Files.readString(CORPUS.resolve("wrong_plan_one_shape.cu"))
                .replace("\"when\": \"cols <= 4096\"", "\"when\": \"cols >= 128 && cols <= 4096\"")
                .replace("\"when\": \"cols > 4096 && cols <= 100000\"", "\"when\": \"cols > 4096\"");
        KernelFile wide = ContractParser.parse("wide_only.cu", null, source);
        assertEquals(2, wide.plans().size());
        CandidateResult r = judge(wide, 5, false);
        Shape narrow = drawn(5).getFirst().shape();
        assertEquals(Verdict.PLAN_ERROR, r.verdict(), r.detail());
        assertTrue(r.detail().startsWith("fresh shape " + narrow + ": "), r.detail());
    }

    @Test
    void aPassingKernelPassesEveryFreshShapeAndTheSecretReplaysThem() {
        KernelFile online = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        CandidateResult first = judge(online, 21, false);
        CandidateResult again = judge(online, 21, false);
        assertTrue(first.passed(), first.detail());
        assertEquals(drawn(21).stream().map(d -> d.shape().toString()).toList(),
                first.freshShapes().stream().map(ShapeResult::shape).toList());
        assertEquals(first.freshShapes().stream().map(ShapeResult::shape).toList(),
                again.freshShapes().stream().map(ShapeResult::shape).toList(), "the same secret, the same shapes");
        assertTrue(first.freshShapes().stream().allMatch(s -> s.verdict().passed() && s.plan() != null));
        assertNull(first.atScaleShapes(), "not asked for");
    }

    @Test
    void atScaleAHonestKernelIsJudgedPast2To31AndA32BitCountIsCaught() {
        KernelFile online = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        CandidateResult honest = judge(online, 31, true);
        assertTrue(honest.passed(), honest.detail());
        assertNull(honest.atScaleNote(), "an H100 holds the at-scale shape");
        assertEquals(17, honest.atScaleShapes().size(), "16 held-out shapes and the at-scale one");
        assertEquals("16385x131073", honest.atScaleShapes().getLast().shape());
        assertEquals(2_147_631_105L, honest.judgedElements());

        KernelFile offsets = ContractParser.read(CORPUS.resolve("int32_offsets.cu"));
        assertTrue(judge(offsets, 31, false).passed(), "it passes everything below 2^31 elements");
        CandidateResult caught = judge(offsets, 31, true);
        assertEquals(Verdict.UNWRITTEN_OUTPUT, caught.verdict(), caught.detail());
        assertTrue(caught.detail().startsWith("at-scale shape 16385x131073: case "), caught.detail());
        assertNull(caught.judgedElements());
    }
}
