package dev.kevo.cli;

import dev.kevo.worker.ConnectBack;
import dev.kevo.worker.WorkerLoop;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "worker", hidden = true, mixinStandardHelpOptions = true,
        header = "Judge candidates for a supervisor (started by kevo itself).",
        description = "Judges candidates for a supervisor over stdin/stdout, or over a connection back to it "
                + "(length-prefixed JSON frames). Started by kevo itself; not for people.")
public final class WorkerCommand implements Callable<Integer> {

    @Option(names = "--device", paramLabel = "N", description = "GPU ordinal; omit for a check-only worker.")
    Integer device;

    @Option(names = "--nvrtc", paramLabel = "LIB")
    Path nvrtc;

    @Option(names = "--connect-port", paramLabel = "PORT",
            description = "Frames over a TCP connection to this port of --connect-host, shown the token in $"
                    + ConnectBack.TOKEN_VARIABLE + ", instead of over stdin/stdout.")
    Integer connectPort;

    @Option(names = "--connect-host", paramLabel = "HOST",
            description = "Where the supervisor listens. Default: $" + ConnectBack.LAUNCH_HOST_VARIABLE
                    + " (the host srun ran on), else this host.")
    String connectHost;

    @Option(names = "--sanitize-run", description = "Run each file's plans for compute-sanitizer to watch; judge nothing.")
    boolean sanitizeRun;

    @Option(names = "--profile-run", description = "Run each file's plan once per suite shape for Nsight Compute to "
            + "profile; judge nothing.")
    boolean profileRun;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        OptionChecks.atLeast(spec, "--device", device, 0);
        OptionChecks.atLeast(spec, "--connect-port", connectPort, 1);
        // The protocol channel carries frames only: anything else that prints goes to stderr, which the supervisor
        // keeps.
        PrintStream stdout = System.out;
        System.setOut(System.err);
        Optional<Integer> gpu = Optional.ofNullable(device);
        Optional<Path> lib = Optional.ofNullable(nvrtc);
        if (connectPort == null) {
            return new WorkerLoop(gpu, lib, System.in, stdout, mode()).run();
        }
        try (Socket socket = ConnectBack.connect(Optional.ofNullable(connectHost), connectPort, System.getenv())) {
            return new WorkerLoop(gpu, lib, socket.getInputStream(), ConnectBack.output(socket), mode()).run();
        }
    }

    private WorkerLoop.Mode mode() {
        return sanitizeRun ? WorkerLoop.Mode.SANITIZER_RUN : profileRun ? WorkerLoop.Mode.PROFILER_RUN
                : WorkerLoop.Mode.JUDGE;
    }
}
