package dev.kevo.worker;

import dev.kevo.eval.Phase;
import java.io.IOException;
import java.util.Optional;

/**
 * A worker that misbehaves on purpose, for testing the supervisor without a GPU: it configures like a real
 * one, then crashes or hangs in the check phase of the first candidate, or eats memory in its compile phase.
 */
public final class FakeWorker {
    private FakeWorker() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        String mode = args[0];
        if (mode.equals("refuse")) {
            Frames.read(System.in);
            Frames.write(System.out, new Message.Failed("no GPU here (fake)", 3));
            return;
        }
        Frames.read(System.in);
        Frames.write(System.out, new Message.Ready(null, "0.0", "fake", 1));
        Optional<Message> request = Frames.read(System.in);
        long id = ((Message.Evaluate) request.orElseThrow()).id();
        Frames.write(System.out, new Message.Entered(id, Phase.COMPILE));
        if (mode.equals("bloat")) {
            // Like a compiler eating memory: keep touching new pages until killed.
            java.util.List<byte[]> hog = new java.util.ArrayList<>();
            while (true) {
                byte[] chunk = new byte[16 << 20];
                java.util.Arrays.fill(chunk, (byte) 1);
                hog.add(chunk);
                Thread.sleep(20);
            }
        }
        Frames.write(System.out, new Message.Entered(id, Phase.CHECK));
        switch (mode) {
            case "crash" -> {
                System.err.println("fake worker: segmentation fault (core dumped)");
                System.exit(139);
            }
            case "hang" -> Thread.sleep(600_000);
            default -> throw new IllegalArgumentException(mode);
        }
    }
}
