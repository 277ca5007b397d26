package dev.kevo.worker;

import dev.kevo.cuda.Compilation;
import dev.kevo.data.CandidateResult;
import dev.kevo.data.DeviceInfo;
import dev.kevo.data.Verdict;
import dev.kevo.eval.Phase;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A worker that misbehaves on purpose, for testing the supervisor without a GPU: it configures like a real
 * one, then crashes or hangs in the check phase of the first candidate (after announcing the launch's deadline, or
 * not), or eats memory in its compile phase. Given {@code --connect-port=PORT} last, it speaks over a connection
 * back ({@link ConnectBack}), or never connects ({@code never-connect}).
 */
public final class FakeWorker {
    private FakeWorker() {
    }

    /**
     * A well-behaved worker for device {@code ordinal} of a two-GPU host: each candidate takes 150 ms ({@code millis}
     * when given) and passes, with a score that says which device judged it (2.0 on device 0, 1.0 elsewhere) and its
     * start and end (epoch milliseconds) as its detail, so that a test can see which evaluations overlapped. With a
     * {@code log}, each judgement appends "start NAME SEED STEP" as it begins and "end ..." as it answers (STEP:
     * the Slurm job.step it runs in, "-" outside Slurm), so that a test sees what was judged where, and how often.
     * A source with a line "// HOLD PATH" is held, once its start is logged, until the file PATH exists: a test
     * keeps the GPU busy for exactly as long as it needs, rather than for a time it hopes is long enough.
     */
    private static void serve(int ordinal, Path log, long millis) throws IOException, InterruptedException {
        DeviceInfo device = DeviceInfo.builder().ordinal(ordinal).name("Fake GPU").pciBusId("0000:0" + ordinal)
                .ccMajor(9).sms(132).l2Bytes(50 << 20).memoryBytes(80L << 30).maxThreadsPerBlock(1024)
                .maxSharedPerBlockOptin(232448).driverVersion("580.0").build();
        Map<String, String> env = System.getenv();
        String step = env.containsKey("SLURM_STEP_ID") ? env.get("SLURM_JOB_ID") + "." + env.get("SLURM_STEP_ID") : "-";
        answerEach(Message.Ready.here(device, 2, "0.0", "fake", 1, env), request -> {
            long start = System.currentTimeMillis();
            String what = request.file().name() + " " + request.inputSeed() + " " + step + "\n";
            // The champion's confirmation judges the best again: logged apart, so counts of a candidate's
            // evaluations stay counts of its evaluations.
            String kind = request.run().atScale() ? "confirm " : "";
            append(log, kind + "start " + what);
            holdWhileAsked(request.file().source());
            Thread.sleep(millis > 0 ? millis : 150);
            append(log, kind + "end " + what);
            String span = start + "-" + System.currentTimeMillis() + request.run().compiledAhead()
                    .map(c -> Arrays.equals(c.cubin(), cubin(request)) ? " ahead" : " foreign cubin").orElse("");
            return Message.Result.of(request.id(), CandidateResult.builder(request.file().name(), Verdict.PASS,
                    request.inputSeed()).detail(span).score(ordinal == 0 ? 2.0 : 1.0, 0.5).compiled(1.0, null, null)
                    .evaluationMs(150.0).build(), false);
        });
    }

    /**
     * A check-only worker that "compiles" in 20 ms: a source containing BROKEN is a compile error, any other
     * passes and comes back with its bytes and input seed as the cubin ({@link #cubin}: the fake GPU checks that
     * a cubin it is handed is its candidate's). With a {@code log}, each compile appends "compile NAME
     * SEED", so that a test sees how often a candidate was compiled.
     */
    private static void compile(Path log) throws IOException, InterruptedException {
        answerEach(new Message.Ready(null, 0, "0.0", "fake", 1, null, null), request -> {
            append(log, "compile " + request.file().name() + " " + request.inputSeed() + "\n");
            Thread.sleep(20);
            if (request.file().source().contains("BROKEN")) {
                return Message.Result.of(request.id(), CandidateResult.rejected(request.file().name(), null, null,
                        Verdict.COMPILE_ERROR, "k.cu(3): error: BROKEN", request.inputSeed()), false);
            }
            return new Message.Result(request.id(), CandidateResult.builder(request.file().name(), Verdict.PASS,
                    request.inputSeed()).compiled(20.0, null, null).build(), false,
                    new Compilation(request.file().name(), "sm_90", cubin(request), "", Duration.ofMillis(20),
                            List.of()));
        });
    }

    /** Waits until the file that {@code source}'s "// HOLD PATH" line names exists; at once without one. */
    private static void holdWhileAsked(String source) throws InterruptedException {
        Optional<Path> release = source.lines().filter(l -> l.startsWith("// HOLD ")).findFirst()
                .map(l -> Path.of(l.substring("// HOLD ".length()).strip()));
        while (release.isPresent() && !Files.exists(release.get())) {
            Thread.sleep(5);
        }
    }

    /** The fake cubin of a candidate: what a compile depends on, its source and input seed. */
    private static byte[] cubin(Message.Evaluate request) {
        return (request.file().source() + "#" + request.inputSeed()).getBytes(StandardCharsets.UTF_8);
    }

    private static void append(Path log, String line) {
        if (log == null) {
            return;
        }
        try {
            Files.writeString(log, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private interface Answer {
        Message.Result to(Message.Evaluate request) throws InterruptedException;
    }

    /** Says it is ready, then answers each request (entering the compile phase first) until stdin closes. */
    private static void answerEach(Message.Ready ready, Answer answer) throws IOException, InterruptedException {
        Frames.write(System.out, ready);
        while (true) {
            Optional<Message> next = Frames.read(System.in);
            if (next.isEmpty()) {
                return;
            }
            Message.Evaluate request = (Message.Evaluate) next.get();
            Frames.write(System.out, new Message.Entered(request.id(), Phase.COMPILE));
            Frames.write(System.out, answer.to(request));
        }
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        String mode = args[0];
        String last = args[args.length - 1];
        if (last.startsWith("--connect-port=")) {
            // Started to connect back (ConnectBack): the frames go over that connection, as a real worker's do.
            args = java.util.Arrays.copyOf(args, args.length - 1);
            if (mode.equals("never-connect")) {
                Thread.sleep(600_000);
                return;
            }
            int port = Integer.parseInt(last.substring(last.indexOf('=') + 1));
            Socket socket = ConnectBack.connect(Optional.empty(), port, System.getenv());
            System.setIn(socket.getInputStream());
            System.setOut(new PrintStream(ConnectBack.output(socket)));
        }
        if (mode.equals("refuse")) {
            Frames.read(System.in);
            Frames.write(System.out, new Message.Failed("no GPU here (fake)", 3));
            return;
        }
        Frames.read(System.in);
        if (mode.equals("mute")) {
            // Like a node that never gets its step going: configured, and never ready.
            Thread.sleep(600_000);
            return;
        }
        if (mode.equals("serve")) {
            // A log of "-" is none, so that a test can give the time per candidate without a log.
            serve(Integer.parseInt(args[1]), args.length > 2 && !args[2].equals("-") ? Path.of(args[2]) : null,
                    args.length > 3 ? Long.parseLong(args[3]) : 0);
            return;
        }
        if (mode.equals("compile")) {
            compile(args.length > 1 ? Path.of(args[1]) : null);
            return;
        }
        Frames.write(System.out, new Message.Ready(null, 0, "0.0", "fake", 1, null, null));
        Optional<Message> request = Frames.read(System.in);
        long id = ((Message.Evaluate) request.orElseThrow()).id();
        Frames.write(System.out, new Message.Entered(id, Phase.COMPILE));
        if (mode.equals("bloat")) {
            // Like a compiler eating memory: keep touching new pages until killed. Native memory, as NVRTC's is, so
            // that this loop sets the pace, not the collector; the pause keeps the growth gradual enough for the
            // supervisor's periodic look to catch it not far past the limit.
            java.util.List<java.nio.ByteBuffer> hog = new java.util.ArrayList<>();
            while (true) {
                java.nio.ByteBuffer chunk = java.nio.ByteBuffer.allocateDirect(16 << 20);
                for (int i = 0; i < chunk.capacity(); i += 4096) {
                    chunk.put(i, (byte) 1);
                }
                hog.add(chunk);
                Thread.sleep(5);
            }
        }
        Frames.write(System.out, new Message.Entered(id, Phase.CHECK));
        switch (mode) {
            case "crash" -> {
                System.err.println("fake worker: segmentation fault (core dumped)");
                System.exit(139);
            }
            case "hang" -> Thread.sleep(600_000);
            case "hang-after-expect" -> {
                // Like a kernel spinning in a checked launch whose deadline the worker announced.
                Frames.write(System.out, new Message.Expect(id, 0.5, "case normal-1 of 4x100"));
                Thread.sleep(600_000);
            }
            default -> throw new IllegalArgumentException(mode);
        }
    }
}
