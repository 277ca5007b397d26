package dev.kevo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM on the tests' own classpath: a fake or real worker, or kevo itself. Such a JVM lives
 * for seconds and runs little Java: C1 alone and the serial collector start it sooner, which on two cores is most of
 * what a test of worker pools and supervisors waits for.
 */
public final class TestJvm {
    private TestJvm() {
    }

    /** {@code java -cp <tests' classpath> main args...}. */
    public static List<String> command(Class<?> main, String... args) {
        return command(false, main, args);
    }

    /** {@link #command} for a main that calls native code (NVRTC, the driver), as bin/kevo allows it. */
    public static List<String> nativeCommand(Class<?> main, String... args) {
        return command(true, main, args);
    }

    private static List<String> command(boolean nativeAccess, Class<?> main, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        if (nativeAccess) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return command;
    }
}
