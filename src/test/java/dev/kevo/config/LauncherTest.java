package dev.kevo.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kevo.TestFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/kevo as shipped (src/main/dist/bin/kevo), run from another directory in the two layouts it is installed in:
 * the bundle (files beside bin/) and a checkout's build (target/bin/, files in the checkout above target/). A stand-in
 * java, found through JAVA_HOME (or PATH), prints the KEVO_HOME the launcher exported instead of starting kevo.
 */
class LauncherTest {

    private static final Path LAUNCHER = TestFiles.root().resolve("src/main/dist/bin/kevo");

    @Test
    void aBuildInACheckoutFindsTheCheckoutsFiles(@TempDir Path dir) throws Exception {
        Path checkout = dir.resolve("checkout");
        Files.createDirectories(checkout.resolve("evaluator/suites"));
        Path launcher = install(checkout.resolve("target"));
        assertEquals(checkout.toRealPath().toString(), kevoHome(launcher, dir, Map.of()));
    }

    @Test
    void aBundleFindsItsOwnFiles(@TempDir Path dir) throws Exception {
        Path bundle = dir.resolve("kevo-0.1.0");
        Files.createDirectories(bundle.resolve("evaluator/suites"));
        // a folder above the bundle that looks like a checkout must not win over the bundle's own files
        Files.createDirectories(dir.resolve("evaluator/suites"));
        Path launcher = install(bundle);
        assertEquals(bundle.toRealPath().toString(), kevoHome(launcher, dir, Map.of()));
    }

    @Test
    void anExplicitKevoHomeIsKept(@TempDir Path dir) throws Exception {
        Path checkout = dir.resolve("checkout");
        Files.createDirectories(checkout.resolve("evaluator/suites"));
        Path launcher = install(checkout.resolve("target"));
        assertEquals("/opt/elsewhere", kevoHome(launcher, dir, Map.of("KEVO_HOME", "/opt/elsewhere")));
    }

    /**
     * A host's default java is often older than kevo needs (Debian 12's is 17): a JAVA_HOME whose release file says 17
     * is passed over for a Java 25 found further on, here the java on PATH, instead of failing with a class-version
     * error.
     */
    @Test
    void aJavaOlderThan25IsPassedOver(@TempDir Path dir) throws Exception {
        Path checkout = dir.resolve("checkout");
        Files.createDirectories(checkout.resolve("evaluator/suites"));
        Path launcher = install(checkout.resolve("target"));
        Path old = jdk(dir.resolve("jdk-17"), "17.0.15", "printf 'java 17 ran kevo'");
        Path current = jdk(dir.resolve("jdk-25"), "25.0.3", "printf '%s' \"$KEVO_HOME\"");
        assertEquals(checkout.toRealPath().toString(), kevoHome(launcher, dir, Map.of("JAVA_HOME", old.toString(),
                "PATH", current.resolve("bin") + ":/usr/bin:/bin")));
    }

    /** Copies the launcher to {@code root/bin/kevo}, with a stand-in JDK under {@code root/jdk}. */
    private static Path install(Path root) throws IOException {
        Path bin = Files.createDirectories(root.resolve("bin"));
        Path launcher = Files.copy(LAUNCHER, bin.resolve("kevo"));
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        jdk(root.resolve("jdk"), null, "printf '%s' \"$KEVO_HOME\"");
        return launcher;
    }

    /** A stand-in JDK at {@code home} whose java runs {@code script}, with a release file when a version is given. */
    private static Path jdk(Path home, String version, String script) throws IOException {
        Path java = Files.createDirectories(home.resolve("bin")).resolve("java");
        Files.writeString(java, "#!/usr/bin/env bash\n" + script + "\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (version != null) {
            Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"test\"\nJAVA_VERSION=\"" + version + "\"\n");
        }
        return home;
    }

    private static String kevoHome(Path launcher, Path cwd, Map<String, String> extra) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--version").directory(cwd.toFile());
        pb.environment().remove("KEVO_HOME");
        pb.environment().put("JAVA_HOME", launcher.getParent().getParent().resolve("jdk").toString());
        pb.environment().put("KEVO_CACHE", "off");
        pb.environment().putAll(extra);
        pb.redirectErrorStream(true);
        Process p = pb.start();
        assertEquals(true, p.waitFor(20, TimeUnit.SECONDS), "launcher finished");
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}
