package dev.kevo.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** kevo.h, the header every kernel may include: NVRTC has no C headers, so INFINITY and friends come from here. */
public final class Prelude {

    public static final String NAME = "kevo.h";

    private Prelude() {
    }

    public static Map<String, String> headers() {
        return Map.of(NAME, resource(Prelude.class, NAME));
    }

    /** Reads a text resource next to a class. */
    public static String resource(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " missing from the kevo jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
