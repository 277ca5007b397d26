package dev.kevo.worker;

import dev.kevo.KevoException;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A worker's frames over a TCP connection that the worker opens back to its supervisor, Nagle's algorithm off at
 * both ends, instead of over the stdin and stdout of the process the supervisor started.
 * <p>
 * Why: srun relays a step's stdin and stdout in messages of at most 1 KB over TCP connections that leave Nagle on, so
 * every frame longer than 1 KB waits for the peer's delayed acknowledgement: 44 ms a frame, in either direction
 * (bench/experiments/srun_relay.py; frames of 1 KB or less take 0.2 ms). An evaluation sends two such frames (the
 * candidate out, its result back), and the worker is idle during both.
 * <p>
 * The worker connects to the port it is given on the host it is given, or on SLURM_LAUNCH_NODE_IPADDR (where srun
 * runs: the address Slurm's own I/O connections reach, so a cluster where srun works lets this through too), and
 * proves it is the worker that was started by sending the token it got in its environment. The listening socket
 * takes one such connection and closes; anything else that connects is dropped.
 */
public final class ConnectBack implements AutoCloseable {
    /** The environment variable that carries the token to the worker (not its arguments, which ps shows to all). */
    public static final String TOKEN_VARIABLE = "KEVO_WORKER_TOKEN";
    /** Where a worker started by srun connects when it is given no host. */
    public static final String LAUNCH_HOST_VARIABLE = "SLURM_LAUNCH_NODE_IPADDR";
    private static final int TOKEN_BYTES = 16;
    private static final int TOKEN_CHARS = 2 * TOKEN_BYTES;
    /** How long a connection may take to show its token before it is dropped. */
    private static final int HELLO_MILLIS = 5_000;
    /** How often accepting looks whether the worker's process is still there. */
    private static final int ACCEPT_SLICE_MILLIS = 200;
    private static final int BUFFER_BYTES = 64 << 10;

    private final ServerSocket listener;
    private final String token;

    private ConnectBack(ServerSocket listener, String token) {
        this.listener = listener;
        this.token = token;
    }

    /** Listens on an ephemeral port of every interface (the worker may be on any node of the allocation). */
    public static ConnectBack listen() {
        try {
            ServerSocket listener = new ServerSocket();
            listener.bind(new InetSocketAddress(0), 4);
            byte[] secret = new byte[TOKEN_BYTES];
            new SecureRandom().nextBytes(secret);
            return new ConnectBack(listener, HexFormat.of().formatHex(secret));
        } catch (IOException e) {
            throw KevoException.environment("cannot listen for a worker's connection: " + e.getMessage());
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The worker's command with where to connect added. */
    public List<String> workerCommand(List<String> worker) {
        List<String> command = new ArrayList<>(worker);
        command.add("--connect-port=" + port());
        return command;
    }

    /** What the started process's environment needs: the token the worker shows. */
    public Map<String, String> environment() {
        return Map.of(TOKEN_VARIABLE, token);
    }

    /**
     * The worker's connection, once it has shown the token; fails once {@code process} has ended or
     * {@code deadlineNanos} (System.nanoTime) has passed without one. Closes the listener either way.
     */
    public Socket accept(Process process, long deadlineNanos) throws IOException {
        try (listener) {
            listener.setSoTimeout(ACCEPT_SLICE_MILLIS);
            while (true) {
                if (!process.isAlive()) {
                    throw new IOException("its process ended (exit code " + process.exitValue()
                            + ") before it connected back to port " + port());
                }
                if (System.nanoTime() > deadlineNanos) {
                    throw new IOException("it did not connect back to port " + port() + " in time");
                }
                Socket socket;
                try {
                    socket = listener.accept();
                } catch (SocketTimeoutException e) {
                    continue;
                }
                if (shows(socket, token)) {
                    socket.setSoTimeout(0);
                    socket.setTcpNoDelay(true);
                    return socket;
                }
                socket.close();
            }
        }
    }

    private static boolean shows(Socket socket, String token) {
        try {
            socket.setSoTimeout(HELLO_MILLIS);
            byte[] shown = new DataInputStream(socket.getInputStream()).readNBytes(TOKEN_CHARS);
            return MessageDigest.isEqual(shown, token.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The worker's side: connects to {@code host} (else {@link #LAUNCH_HOST_VARIABLE}, else this host), shows the
     * token {@code env} holds, and returns the connection with Nagle off.
     */
    public static Socket connect(Optional<String> host, int port, Map<String, String> env) throws IOException {
        String token = env.get(TOKEN_VARIABLE);
        if (token == null || token.length() != TOKEN_CHARS) {
            throw new IOException(TOKEN_VARIABLE + " is not set to the token of " + TOKEN_CHARS
                    + " characters the supervisor gave (does srun pass the environment on? --export=NONE does not)");
        }
        Socket socket = new Socket(host.orElseGet(() -> env.getOrDefault(LAUNCH_HOST_VARIABLE, "localhost")), port);
        socket.setTcpNoDelay(true);
        OutputStream out = socket.getOutputStream();
        out.write(token.getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return socket;
    }

    /**
     * A connection's output, buffered so that a frame's length and its body leave in one segment (frames are flushed
     * whole, see {@link Frames#write}).
     */
    public static OutputStream output(Socket socket) throws IOException {
        return new BufferedOutputStream(socket.getOutputStream(), BUFFER_BYTES);
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException e) {
            // Nothing was waiting on it.
        }
    }
}
