package dev.kevo.task.op;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The texts an operator keeps beside its class: its reference in CUDA and its task for a model. */
final class OperatorText {
    private OperatorText() {
    }

    static String resource(Class<? extends Operator> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " of operator " + owner.getSimpleName()
                        + " missing from the kevo jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
