package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import dev.kevo.TestJvm;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two workers, as on a two-GPU host: candidates spread over both, confirmations on the first. */
class WorkerPoolTest {
    private static final Suite SUITE = new Suite("tiny", "", List.of(new Shape(4, 100)));
    private static final KernelFile CANDIDATE = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));

    private static Supervisor fakeDevice(int ordinal) {
        List<String> command = TestJvm.command(FakeWorker.class, "serve", Integer.toString(ordinal));
        return new Supervisor(Supervisor.Setup.builder(command, SUITE, EvalSettings.defaults()).target("sm_90", 132).build());
    }

    @Test
    void candidatesGoToWhicheverWorkerIsFreeAndNameTheirDevice() throws Exception {
        try (WorkerPool pool = WorkerPool.start(List.of(0, 1), WorkerPoolTest::fakeDevice);
             ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            assertEquals(List.of(0, 1), pool.ready().stream().map(r -> r.device().ordinal()).toList());
            List<CandidateResult> done = atOnce(pool, callers, 8);
            Map<String, Long> byDevice = done.stream().collect(Collectors.groupingBy(CandidateResult::device,
                    Collectors.counting()));
            assertEquals(2, byDevice.size(), "both devices judged candidates: " + byDevice);
            byDevice.values().forEach(n -> assertTrue(n >= 2, "spread over both: " + byDevice));
            assertTrue(overlapping(done), "two devices judged at the same time, not one after the other");
            done.forEach(r -> assertEquals(r.device().startsWith("0 ") ? 2.0 : 1.0, r.score().speedup(), r.device()));
        }
    }

    /** {@code n} candidates handed to the pool at the same time, their results in order. */
    private static List<CandidateResult> atOnce(WorkerPool pool, ExecutorService callers, int n) throws Exception {
        List<Future<CandidateResult>> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long seed = i;
            results.add(callers.submit(() -> pool.evaluate(CANDIDATE, seed, Evaluator.Run.plain())));
        }
        List<CandidateResult> done = new ArrayList<>();
        for (Future<CandidateResult> f : results) {
            done.add(f.get());
        }
        return done;
    }

    private static boolean overlapping(List<CandidateResult> done) {
        for (CandidateResult a : done) {
            for (CandidateResult b : done) {
                long[] x = span(a);
                long[] y = span(b);
                if (!a.device().equals(b.device()) && x[0] < y[1] && y[0] < x[1]) {
                    return true;
                }
            }
        }
        return false;
    }

    private static long[] span(CandidateResult r) {
        String[] parts = r.detail().split(" ")[0].split("-");
        return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
    }

    private static Supervisor fakeCompiler(String arch, int sms) {
        return fakeCompiler(arch, sms, null);
    }

    /** A fake check-only worker; with a {@code log}, it appends a line for each compile. */
    private static Supervisor fakeCompiler(String arch, int sms, Path log) {
        List<String> command = new ArrayList<>(TestJvm.command(FakeWorker.class, "compile"));
        if (log != null) {
            command.add(log.toString());
        }
        return new Supervisor(Supervisor.Setup.builder(command, SUITE, EvalSettings.defaults()).target(arch, sms).build());
    }

    @Test
    void whileTheGpuIsBusyCandidatesAreCompiledAheadAndBrokenOnesNeverReachIt() throws Exception {
        KernelFile broken = CANDIDATE.withSource("broken.cu", CANDIDATE.source() + "\n// BROKEN\n");
        KernelFile slow = CANDIDATE.withSource("slow.cu", CANDIDATE.source() + "\n// SLOW\n");
        try (WorkerPool pool = WorkerPool.start(List.of(0), WorkerPoolTest::fakeDevice, WorkerPoolTest::fakeCompiler);
             ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<CandidateResult> first = callers.submit(() -> pool.evaluate(slow, 0, Evaluator.Run.plain()));
            Thread.sleep(800);  // compiled ahead (20 ms), the one GPU is now busy for 1.5 s, and the compiler idle
            Future<CandidateResult> rejected = callers.submit(() -> pool.evaluate(broken, 9, Evaluator.Run.plain()));
            assertEquals(dev.kevo.data.Verdict.COMPILE_ERROR, rejected.get().verdict());
            List<Future<CandidateResult>> results = new ArrayList<>(List.of(first));
            for (int i = 1; i < 4; i++) {
                long seed = i;
                results.add(callers.submit(() -> pool.evaluate(CANDIDATE, seed, Evaluator.Run.plain())));
            }
            List<CandidateResult> done = new ArrayList<>();
            for (Future<CandidateResult> f : results) {
                done.add(f.get());
            }
            assertTrue(done.stream().anyMatch(r -> r.detail().endsWith(" ahead")),
                    "with one GPU busy, the others arrive compiled: " + done.stream().map(CandidateResult::detail).toList());
            assertEquals(null, rejected.get().device(), "rejected before any GPU worker saw it");
        }
    }

    @NeedsNvrtc
    @Test
    void aCheckOnlyWorkerHandsBackTheCubinItCompiled() {
        List<String> command = TestJvm.nativeCommand(dev.kevo.cli.Main.class, "worker");
        try (Supervisor compiler = new Supervisor(Supervisor.Setup.builder(command, SUITE, EvalSettings.defaults()).target("sm_90", 132).build())) {
            Message.Result ok = compiler.compile(CANDIDATE, 1);
            assertTrue(ok.result().passed(), ok.result().detail());
            assertEquals("sm_90", ok.compiled().arch());
            assertTrue(ok.compiled().cubin().length > 1000 && ok.compiled().time().toNanos() > 0);
            KernelFile broken = CANDIDATE.withSource("broken.cu", CANDIDATE.source().replace("expf(", "expf_nope("));
            Message.Result bad = compiler.compile(broken, 1);
            assertEquals(dev.kevo.data.Verdict.COMPILE_ERROR, bad.result().verdict());
            assertEquals(null, bad.compiled());
        }
    }

    @Test
    void withACompilerIdleEvenACandidateThatFindsTheGpuFreeArrivesCompiled() {
        // Compiling on the GPU worker would leave the GPU idle for as long as NVRTC takes, with nothing to judge.
        try (WorkerPool pool = WorkerPool.start(List.of(0), WorkerPoolTest::fakeDevice, WorkerPoolTest::fakeCompiler)) {
            CandidateResult r = pool.evaluate(CANDIDATE, 1, Evaluator.Run.plain());
            assertTrue(r.detail().endsWith(" ahead"), r.detail());
        }
    }

    @Test
    void candidatesNeverQueueForACompilerWhileAGpuIsFree() throws Exception {
        // Two devices, two compilers: eight candidates at once all finish as if no compiler were in the way.
        try (WorkerPool pool = WorkerPool.start(List.of(0, 1), WorkerPoolTest::fakeDevice, WorkerPoolTest::fakeCompiler);
             ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CandidateResult> done = atOnce(pool, callers, 8);
            Map<String, Long> byDevice = done.stream().collect(Collectors.groupingBy(CandidateResult::device,
                    Collectors.counting()));
            assertEquals(2, byDevice.size(), byDevice.toString());
            assertTrue(overlapping(done), "both devices worked at once");
        }
    }

    @Test
    void aCandidateCompiledAheadIsNotCompiledAgainAndOnlyItsExactTwinTakesThatCompile(@TempDir Path dir)
            throws Exception {
        Path log = dir.resolve("compiles.log");
        KernelFile drawn = CANDIDATE.withSource("g0002-i0-c0.cu", CANDIDATE.source() + "\n// drawn\n");
        KernelFile other = CANDIDATE.withSource("g0002-i0-c0.cu", CANDIDATE.source() + "\n// made otherwise\n");
        try (WorkerPool pool = WorkerPool.start(List.of(0), WorkerPoolTest::fakeDevice, (arch, sms) ->
                fakeCompiler(arch, sms, log))) {
            pool.compileAhead(List.of(new WorkerPool.Ahead(drawn, 7)));
            CandidateResult r = pool.evaluate(drawn, 7, Evaluator.Run.plain());
            assertTrue(r.detail().endsWith(" ahead"), r.detail());
            assertEquals(List.of("compile g0002-i0-c0.cu 7"), Files.readAllLines(log),
                    "asked for while (or after) it compiled ahead: it waits for that compile");
            pool.compileAhead(List.of(new WorkerPool.Ahead(drawn, 8)));
            for (CandidateResult x : List.of(pool.evaluate(other, 8, Evaluator.Run.plain()),
                    pool.evaluate(drawn, 9, Evaluator.Run.plain()))) {
                assertFalse(x.detail().endsWith(" foreign cubin"),
                        "another source, or another input seed, is compiled for itself: " + x.detail());
            }
        }
    }

    @Test
    void confirmationsRunOnTheFirstDevice() {
        try (WorkerPool pool = WorkerPool.start(List.of(1, 0), WorkerPoolTest::fakeDevice)) {
            for (int i = 0; i < 4; i++) {
                assertEquals("1 Fake GPU", pool.confirm(CANDIDATE, i).device(), "the first device asked for");
            }
        }
    }

    @Test
    void aWorkerThatCannotStartStopsThePoolWithItsError() {
        Function<Integer, Supervisor> broken = d -> new Supervisor(Supervisor.Setup.builder(List.of("/nonexistent/kevo-worker"), SUITE, EvalSettings.defaults()).target("sm_90", 132).build());
        RuntimeException e = org.junit.jupiter.api.Assertions.assertThrows(RuntimeException.class,
                () -> WorkerPool.start(List.of(0, 1), broken::apply));
        assertTrue(e.getMessage().contains("kevo-worker"), e.getMessage());
    }
}
