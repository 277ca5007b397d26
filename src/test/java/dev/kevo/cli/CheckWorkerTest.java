package dev.kevo.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.KernelResources;
import dev.kevo.data.PhaseLimits;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import dev.kevo.worker.Supervisor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Real check-only workers (NVRTC, no GPU) under supervision: what CI can prove about hostile sources. */
@NeedsNvrtc
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CheckWorkerTest {
    private static final Suite SUITE = new Suite("two", "", List.of(new Shape(32, 128), new Shape(1, 1_000_000)));

    /**
     * The worker that the files rejected before any compile share: one each would make every such test wait for a
     * worker's JVM and NVRTC to start, which is most of what it takes. The compile bomb has its own, with its own
     * limit and a count of restarts that only it made.
     */
    private final Supervisor shared = checker(20);

    @AfterAll
    void closeShared() {
        shared.close();
    }

    private static Supervisor checker(double compileSeconds) {
        EvalSettings settings = EvalSettings.builder().suite("two").baseline("none").limits(PhaseLimits.builder()
                .startupSeconds(60).compileSeconds(compileSeconds).checkSeconds(60).timingSeconds(60).build()).build();
        return Workers.supervisor(Optional.empty(), Optional.empty(), SUITE, null, settings, "sm_90", 132);
    }

    private static KernelFile kernel(String relative) {
        return ContractParser.read(TestFiles.root().resolve(relative));
    }

    @Test
    void aCompileBombIsACompileTimeoutAndTheNextFileGetsAFreshWorker() {
        try (Supervisor supervisor = checker(3)) {
            CandidateResult bomb = supervisor.evaluate(kernel("src/test/resources/hostile/compile_bomb.cu"), 0,
                    Evaluator.Run.plain());
            assertEquals(Verdict.COMPILE_TIMEOUT, bomb.verdict(), bomb.detail());
            CandidateResult good = supervisor.evaluate(kernel("seeds/online.cu"), 0, Evaluator.Run.plain());
            assertEquals(Verdict.PASS, good.verdict(), good.detail());
            assertEquals(1, supervisor.restarts().count());
            assertTrue(supervisor.restarts().millis().getFirst() > 0);
        }
    }

    @Test
    void aPassingFileCarriesEachKernelsRegistersWithNoGpuToLoadItOn() {
        KernelFile seed = kernel("seeds/register_rows.cu");
        CandidateResult result = shared.evaluate(seed, 0, Evaluator.Run.plain());
        assertEquals(Verdict.PASS, result.verdict(), result.detail());
        assertEquals(seed.kernelNames(), result.kernels().stream().map(KernelResources::kernel).toList());
        assertTrue(result.kernels().stream().allMatch(k -> k.registers() > 0), result.kernels()::toString);
    }

    @Test
    void hostCodeIsRejectedBeforeNvrtcSeesIt(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("host.cu");
        Files.writeString(file, """
                /*@kevo {"plans": [{"launches": [{"kernel": "k", "grid": 1, "block": 32, "args": ["y"]}]}]} */
                #include "kevo.h"
                #include <cstdio>
                extern "C" __global__ void k(float* y) { y[threadIdx.x] = 0; }
                """);
        CandidateResult result = shared.evaluate(ContractParser.read(file), 0, Evaluator.Run.plain());
        assertEquals(Verdict.SOURCE_REJECTED, result.verdict());
        assertTrue(result.detail().contains("line 3: includes a header other than \"kevo.h\""), result.detail());
    }

    @Test
    void aPlanThatLeavesAShapeUncoveredIsAPlanError(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("short_only.cu");
        Files.writeString(file, """
                /*@kevo {"plans": [{"when": "cols <= 4096",
                   "launches": [{"kernel": "k", "grid": "rows", "block": 32, "args": ["y"]}]}]} */
                extern "C" __global__ void k(float* y) { }
                """);
        CandidateResult result = shared.evaluate(ContractParser.read(file), 0, Evaluator.Run.plain());
        assertEquals(Verdict.PLAN_ERROR, result.verdict());
        assertTrue(result.detail().contains("no plan covers shape 1x1000000"), result.detail());
    }
}
