package dev.kevo.cli;

import dev.kevo.eval.EvalSettings;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Suite;
import dev.kevo.worker.Supervisor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Starts supervised workers from the same runtime and class path as this process. */
final class Workers {
    private Workers() {
    }

    /** A supervisor for a GPU worker on {@code device}, or a check-only one when the device is empty. */
    static Supervisor supervisor(Optional<Integer> device, Optional<Path> nvrtc, Suite suite, KernelFile baseline,
                                 EvalSettings settings, String arch, int sms) {
        // C1 only and a serial collector: a worker's Java side waits on the GPU, and starts matter more.
        List<String> command = new ArrayList<>(List.of(javaBinary(), "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "worker"));
        device.ifPresent(d -> command.addAll(List.of("--device", Integer.toString(d))));
        nvrtc.ifPresent(p -> command.addAll(List.of("--nvrtc", p.toAbsolutePath().toString())));
        return new Supervisor(new Supervisor.Setup(command, suite, baseline, settings, arch, sms));
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
