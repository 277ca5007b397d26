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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two workers, as on a two-GPU host: candidates spread over both, confirmations on the first. */
class WorkerPoolTest {
    private static final Suite SUITE = new Suite("tiny", "", List.of(new Shape(4, 100)));
    private static final KernelFile CANDIDATE = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
    /** How long a test waits for what its workers should soon do before it fails saying what it waited for. */
    private static final long PATIENCE_SECONDS = 30;

    /**
     * A fake GPU worker at the fake's own pace: the tests of how candidates spread over devices need each to take
     * long enough that a device slow with its first candidate does not see the other take all the rest.
     */
    private static Supervisor fakeDevice(int ordinal) {
        return fakeDevice(ordinal, null, 0);
    }

    /**
     * A fake GPU worker whose candidates take no time worth waiting for, for tests that look at where and how a
     * candidate was judged, not at how long it took.
     */
    private static Supervisor quickDevice(int ordinal) {
        return fakeDevice(ordinal, null, 1);
    }

    /**
     * A fake GPU worker; with a {@code log}, it appends a line as each judgement starts and ends; with {@code millis}
     * (0: the fake's own pace), each candidate takes that long.
     */
    private static Supervisor fakeDevice(int ordinal, Path log, long millis) {
        List<String> command = new ArrayList<>(TestJvm.command(FakeWorker.class, "serve", Integer.toString(ordinal)));
        if (log != null || millis > 0) {
            command.add(log == null ? "-" : log.toString());
        }
        if (millis > 0) {
            command.add(Long.toString(millis));
        }
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
    void whileTheGpuIsBusyCandidatesAreCompiledAheadAndBrokenOnesNeverReachIt(@TempDir Path dir) throws Exception {
        Path judged = dir.resolve("judged.log");
        Path compiles = dir.resolve("compiles.log");
        Path release = dir.resolve("release");
        KernelFile broken = CANDIDATE.withSource("broken.cu", CANDIDATE.source() + "\n// BROKEN\n");
        KernelFile held = CANDIDATE.withSource("held.cu", CANDIDATE.source() + "\n// HOLD " + release + "\n");
        try (WorkerPool pool = WorkerPool.start(List.of(0), d -> fakeDevice(d, judged, 1), (arch, sms) ->
                fakeCompiler(arch, sms, compiles));
             ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<CandidateResult> rejected;
            List<Future<CandidateResult>> results = new ArrayList<>();
            try {
                results.add(callers.submit(() -> pool.evaluate(held, 0, Evaluator.Run.plain())));
                awaitLines(judged, lines -> lines.stream().anyMatch(l -> l.startsWith("start held.cu 0 ")),
                        "the held candidate on the GPU");
                // The one GPU is busy until released below, and the compiler idle.
                rejected = callers.submit(() -> pool.evaluate(broken, 9, Evaluator.Run.plain()));
                // Bounded: a pool that sent it to the GPU would leave it waiting behind the held candidate.
                assertEquals(dev.kevo.data.Verdict.COMPILE_ERROR, rejected.get(PATIENCE_SECONDS, TimeUnit.SECONDS)
                        .verdict());
                for (int i = 1; i < 4; i++) {
                    long seed = i;
                    results.add(callers.submit(() -> pool.evaluate(CANDIDATE, seed, Evaluator.Run.plain())));
                }
                awaitLines(compiles, lines -> lines.containsAll(List.of("compile " + CANDIDATE.name() + " 1",
                        "compile " + CANDIDATE.name() + " 2", "compile " + CANDIDATE.name() + " 3")),
                        "the other three on a compiler");
            } finally {
                // Whatever failed above: closing the callers waits for the held candidate.
                Files.writeString(release, "");
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

    /** Returns once {@code log}'s lines (none while it does not exist) satisfy {@code reached}; fails after a while. */
    private static void awaitLines(Path log, java.util.function.Predicate<List<String>> reached, String what)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        while (!reached.test(Files.exists(log) ? Files.readAllLines(log) : List.of())) {
            assertTrue(System.nanoTime() < deadline, "waited in vain for " + what);
            Thread.sleep(5);
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
    void theCompilersPerGpuAreAsAskedAndNoneMeansTheGpuCompilesItself() {
        AtomicInteger started = new AtomicInteger();
        BiFunction<String, Integer, Supervisor> counted = (arch, sms) -> {
            started.incrementAndGet();
            return fakeCompiler(arch, sms);
        };
        try (WorkerPool pool = WorkerPool.start(List.of(0), WorkerPoolTest::quickDevice, counted, 0)) {
            assertEquals(0, pool.compilers());
            assertEquals(0, started.get());
            CandidateResult r = pool.evaluate(CANDIDATE, 1, Evaluator.Run.plain());
            assertFalse(r.detail().endsWith(" ahead"), "compiled by the GPU worker: " + r.detail());
        }
        try (WorkerPool pool = WorkerPool.start(List.of(0), WorkerPoolTest::quickDevice, counted, 1)) {
            assertEquals(1, pool.compilers());
            assertEquals(1, started.get());
        }
    }

    @Test
    void withACompilerIdleEvenACandidateThatFindsTheGpuFreeArrivesCompiled() {
        // Compiling on the GPU worker would leave the GPU idle for as long as NVRTC takes, with nothing to judge.
        try (WorkerPool pool = WorkerPool.start(List.of(0), WorkerPoolTest::quickDevice, WorkerPoolTest::fakeCompiler)) {
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
        try (WorkerPool pool = WorkerPool.start(List.of(0), WorkerPoolTest::quickDevice, (arch, sms) ->
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
        try (WorkerPool pool = WorkerPool.start(List.of(1, 0), WorkerPoolTest::quickDevice)) {
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
