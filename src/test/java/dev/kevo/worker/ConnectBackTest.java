package dev.kevo.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.ExitCode;
import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.TestJvm;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.EvalSettings;
import dev.kevo.data.PhaseLimits;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Evaluator;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Frames over a connection the worker opens back: only the started worker's connection is taken, a worker whose
 * process ends or that never connects fails its start in seconds with a reason, and the supervisor judges over it.
 */
class ConnectBackTest {
    private static final Suite SUITE = new Suite("tiny", "", List.of(new Shape(4, 100)));
    private static final KernelFile CANDIDATE = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));

    /** Local processes that connect back, as srun steps do (which need a cluster: SlurmWorkersTest). */
    private static final Launcher LOCAL_CONNECTING_BACK = (Launcher) Proxy.newProxyInstance(
            Launcher.class.getClassLoader(), new Class<?>[] {Launcher.class},
            (proxy, method, args) -> method.getName().equals("connectsBack") ? Boolean.TRUE
                    : method.invoke(Launcher.LOCAL, args));

    private static Supervisor fake(PhaseLimits limits, String... args) {
        List<String> command = TestJvm.command(FakeWorker.class, args);
        EvalSettings settings = EvalSettings.builder().suite("tiny").baseline("none").limits(limits).build();
        return new Supervisor(Supervisor.Setup.builder(command, SUITE, settings).target("sm_90", 132)
                .launcher(LOCAL_CONNECTING_BACK).build());
    }

    @Test
    void aStrangerIsDroppedAndTheWorkerShowingTheTokenIsTaken() throws Exception {
        Process alive = new ProcessBuilder("sleep", "30").start();
        try (ConnectBack back = ConnectBack.listen()) {
            CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
                try {
                    return back.accept(alive, System.nanoTime() + TimeUnit.SECONDS.toNanos(20));
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            try (Socket stranger = new Socket("localhost", back.port())) {
                stranger.getOutputStream().write("0".repeat(32).getBytes(StandardCharsets.US_ASCII));
                stranger.getOutputStream().flush();
                assertEquals(-1, stranger.getInputStream().read(), "the wrong token's connection is closed");
            }
            try (Socket worker = ConnectBack.connect(Optional.of("localhost"), back.port(), back.environment());
                 Socket supervisor = accepted.get(20, TimeUnit.SECONDS)) {
                OutputStream out = ConnectBack.output(supervisor);
                Frames.write(out, new Message.Entered(7, dev.kevo.eval.Phase.CHECK));
                assertEquals(new Message.Entered(7, dev.kevo.eval.Phase.CHECK),
                        Frames.read(worker.getInputStream()).orElseThrow());
                assertTrue(supervisor.getTcpNoDelay() && worker.getTcpNoDelay(), "Nagle off at both ends");
            }
        } finally {
            alive.destroyForcibly();
        }
    }

    @Test
    void aProcessThatEndsBeforeConnectingFailsAtOnceWithItsExitCode() throws Exception {
        Process ended = new ProcessBuilder("sh", "-c", "exit 3").start();
        ended.waitFor();
        try (ConnectBack back = ConnectBack.listen()) {
            long start = System.nanoTime();
            IOException e = assertThrows(IOException.class,
                    () -> back.accept(ended, System.nanoTime() + TimeUnit.SECONDS.toNanos(60)));
            assertTrue(e.getMessage().contains("exit code 3"), e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "not at the deadline");
        }
    }

    @Test
    void aWorkerWithoutTheTokenSaysWhichVariableIsMissing() {
        IOException e = assertThrows(IOException.class, () -> ConnectBack.connect(Optional.of("localhost"), 1, Map.of()));
        assertTrue(e.getMessage().contains(ConnectBack.TOKEN_VARIABLE), e.getMessage());
    }

    @Test
    void theSupervisorJudgesOverTheConnectionBack() {
        try (Supervisor supervisor = fake(PhaseLimits.defaults(), "serve", "0")) {
            CandidateResult result = supervisor.evaluate(CANDIDATE, 1, Evaluator.Run.plain());
            assertEquals(Verdict.PASS, result.verdict(), result.detail());
            assertTrue(result.device().contains("0 Fake GPU"), result.device());
        }
    }

    @Test
    void aWorkerThatNeverConnectsBackFailsItsStartAtTheStartupLimit() {
        try (Supervisor supervisor = fake(PhaseLimits.builder().startupSeconds(3).compileSeconds(20)
                .checkSeconds(20).timingSeconds(20).build(), "never-connect")) {
            long start = System.nanoTime();
            KevoException e = assertThrows(KevoException.class, supervisor::ready);
            assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
            assertTrue(e.getMessage().contains("did not connect back"), e.getMessage());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(15), "bounded by the 3 s startup limit");
        }
    }
}
