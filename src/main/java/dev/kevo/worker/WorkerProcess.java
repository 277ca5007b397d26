package dev.kevo.worker;

import dev.kevo.KevoException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One worker process, started where its {@link Launcher} says: its input, a reader thread that queues its frames,
 * and the tail of its stderr. It knows nothing of candidates or phases; {@link Supervisor} speaks to it.
 */
final class WorkerProcess {
    /** How long a worker whose output ended may take to exit: srun waits for a cancelled step's tasks. */
    private static final long STEP_END_WAIT_SECONDS = 40;
    /** How long a worker's connection back outlives its process, for the frames it sent before it ended. */
    private static final long CONNECTION_GRACE_SECONDS = 2;

    private final Process process;
    private final Launcher launcher;
    private final OutputStream stdin;
    private final BlockingQueue<Object> inbox;
    private final StringBuilder stderr;
    private final Thread stderrReader;

    private WorkerProcess(Process process, Launcher launcher, OutputStream stdin, BlockingQueue<Object> inbox,
                          StringBuilder stderr, Thread stderrReader) {
        this.process = process;
        this.launcher = launcher;
        this.stdin = stdin;
        this.inbox = inbox;
        this.stderr = stderr;
        this.stderrReader = stderrReader;
    }

    /** Put in the inbox when the worker's output ends. */
    record Closed(String reason) {
    }

    /**
     * Starts {@code worker} where {@code launcher} says; a worker that connects back must do so before
     * {@code deadlineNanos}, or it is killed and this fails with the end of its stderr.
     */
    static WorkerProcess spawn(List<String> worker, Launcher launcher, int tailChars, long deadlineNanos) {
        ConnectBack back = launcher.connectsBack() ? ConnectBack.listen() : null;
        List<String> command = launcher.command(back == null ? worker : back.workerCommand(worker));
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(command);
            if (back != null) {
                builder.environment().putAll(back.environment());
            }
            process = builder.start();
            launcher.started(process);
        } catch (IOException e) {
            if (back != null) {
                back.close();
            }
            throw KevoException.environment("cannot start a worker (" + String.join(" ", command) + "): "
                    + e.getMessage());
        }
        BlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
        StringBuilder stderr = new StringBuilder();
        Thread err = Thread.ofVirtual().name("worker-err").start(() -> drain(process.getErrorStream(), stderr,
                tailChars));
        if (back == null) {
            Thread.ofVirtual().name("worker-out").start(() -> pump(process.getInputStream(), inbox));
            return new WorkerProcess(process, launcher, process.getOutputStream(), inbox, stderr, err);
        }
        try {
            Socket socket = back.accept(process, deadlineNanos);
            // A failed node leaves the connection open with nobody behind it: srun's exit ends it, after a grace
            // in which the frames the worker sent before it exited are still read.
            process.onExit().thenRunAsync(() -> closeQuietly(socket),
                    CompletableFuture.delayedExecutor(CONNECTION_GRACE_SECONDS, TimeUnit.SECONDS));
            InputStream frames = socket.getInputStream();
            Thread.ofVirtual().name("worker-out").start(() -> pump(frames, inbox));
            process.getOutputStream().close();
            Thread.ofVirtual().name("worker-stdout").start(() -> drain(process.getInputStream(), stderr,
                    tailChars));
            return new WorkerProcess(process, launcher, ConnectBack.output(socket), inbox, stderr, err);
        } catch (IOException e) {
            WorkerProcess failed = new WorkerProcess(process, launcher, OutputStream.nullOutputStream(), inbox, stderr, err);
            failed.kill();
            try {
                err.join(Duration.ofSeconds(2));
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
            throw KevoException.environment("the worker did not start: " + e.getMessage() + failed.stderrTail());
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Already closed.
        }
    }

    private static void pump(InputStream in, BlockingQueue<Object> inbox) {
        try {
            while (true) {
                var message = Frames.read(in);
                if (message.isEmpty()) {
                    inbox.add(new Closed("its output ended"));
                    return;
                }
                inbox.add(message.get());
            }
        } catch (IOException e) {
            inbox.add(new Closed(e.getMessage()));
        }
    }

    private static void drain(InputStream err, StringBuilder tail, int tailChars) {
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = err.read(buffer)) > 0; ) {
                synchronized (tail) {
                    tail.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    if (tail.length() > tailChars) {
                        tail.delete(0, tail.length() - tailChars);
                    }
                }
            }
        } catch (IOException e) {
            // The process is gone; what was read is kept.
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    void send(Message message) throws IOException {
        Frames.write(stdin, message);
    }

    /** The next message or {@link Closed}; null once {@code deadlineNanos} has passed. */
    Object poll(long deadlineNanos) {
        try {
            return inbox.poll(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Resident memory from /proc (Linux); 0 where it cannot be read, which disables the memory limit. For a Slurm
     * step this is srun's, not the worker's: there the step's own memory limit (--mem) is what bounds it.
     */
    long residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(
                    process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("\\D", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // Gone, or not Linux.
        }
        return 0;
    }

    String stderrTail() {
        synchronized (stderr) {
            String text = stderr.toString().strip();
            return text.isEmpty() ? "" : "; its stderr ends: " + text.lines().reduce((a, b) -> b).orElse("");
        }
    }

    /**
     * All of the stderr tail, once the process has ended (srun writes why its step ended as it exits; it waits
     * for the step's tasks up to the cluster's KillWait, hence the wait), or as far as it got.
     */
    String stderrAfterExit() {
        try {
            if (process.waitFor(STEP_END_WAIT_SECONDS, TimeUnit.SECONDS)) {
                stderrReader.join(Duration.ofSeconds(2));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (stderr) {
            return stderr.toString();
        }
    }

    void kill() {
        launcher.stop(process);
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void shutdown(Duration grace) {
        try {
            stdin.close();
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                kill();
            }
        } catch (IOException e) {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }
}
