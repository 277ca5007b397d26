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

    /**
     * Several resources compiled as one reference, each under its own name (a {@code #line} directive before it), so
     * that a compiler message points into the right file: how operators share a row statistic's definition.
     */
    static String sources(Class<? extends Operator> owner, String... names) {
        StringBuilder out = new StringBuilder();
        for (String name : names) {
            out.append("#line 1 \"").append(name).append("\"\n").append(resource(owner, name));
            if (out.charAt(out.length() - 1) != '\n') {
                out.append('\n');
            }
        }
        return out.toString();
    }
}
