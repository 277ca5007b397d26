package dev.kevo;

import dev.kevo.cli.Main;
import java.io.PrintWriter;
import java.io.StringWriter;

/** kevo's command line run in this JVM, as the tests meet it: its exit code and what it printed to each stream. */
public final class KevoCli {
    private KevoCli() {
    }

    public record Outcome(int code, String out, String err) {
    }

    public static Outcome kevo(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Outcome(code, out.toString(), err.toString());
    }
}
