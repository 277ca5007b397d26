package dev.kevo.cli;

import dev.kevo.worker.WorkerLoop;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(name = "worker", hidden = true,
        description = "Judges candidates for a supervisor over stdin/stdout (length-prefixed JSON frames). "
                + "Started by kevo itself; not for people.")
public final class WorkerCommand implements Callable<Integer> {

    @Option(names = "--device", paramLabel = "N", description = "GPU ordinal; omit for a check-only worker.")
    Integer device;

    @Option(names = "--nvrtc", paramLabel = "LIB")
    Path nvrtc;

    @Override
    public Integer call() throws IOException {
        // stdout is the protocol channel: anything else that prints goes to stderr, which the supervisor keeps.
        PrintStream protocol = System.out;
        System.setOut(System.err);
        return new WorkerLoop(Optional.ofNullable(device), Optional.ofNullable(nvrtc), System.in, protocol).run();
    }
}
