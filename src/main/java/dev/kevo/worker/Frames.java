package dev.kevo.worker;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Optional;

/**
 * The supervisor-worker wire format: each message is a 4-byte big-endian length and that many bytes of JSON.
 * Length-prefixed so that a message never depends on what else a process writes, and bounded so that a
 * broken peer cannot make the other side allocate without limit.
 */
public final class Frames {
    public static final int MAX_FRAME_BYTES = 64 << 20;
    static final ObjectMapper JSON = new ObjectMapper()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .registerModule(WireForms.module());

    private Frames() {
    }

    public static void write(OutputStream out, Message message) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(message);
        DataOutputStream data = new DataOutputStream(out);
        data.writeInt(bytes.length);
        data.write(bytes);
        data.flush();
    }

    /** The next message, or empty at a clean end of stream. */
    public static Optional<Message> read(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        int length;
        try {
            length = data.readInt();
        } catch (EOFException e) {
            return Optional.empty();
        }
        if (length < 0 || length > MAX_FRAME_BYTES) {
            throw new IOException("frame of " + length + " bytes, over the " + MAX_FRAME_BYTES + "-byte limit");
        }
        byte[] bytes = data.readNBytes(length);
        if (bytes.length != length) {
            throw new IOException("stream ended inside a frame");
        }
        return Optional.of(JSON.readValue(bytes, Message.class));
    }
}
