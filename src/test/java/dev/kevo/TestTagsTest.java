package dev.kevo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Nvrtc;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No test reaches NVRTC, a GPU, Chromium, nvcc, a C++ compiler or Slurm without the annotation that skips it where
 * they are missing: otherwise the README's {@code mvn verify} fails on a fresh machine, as KnobCompileTest once did,
 * while CI, which installs them, stays green.
 */
class TestTagsTest {

    private static final String FIXTURES = TestTagsTest.class.getName() + "$";

    /** The compiled test classes' folder, and the internal names of every class in it. */
    private static Path testClasses() {
        try {
            return Path.of(TestTagsTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<String> testCode() {
        Path root = testClasses();
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> root.relativize(f).toString().replace('\\', '/').replaceFirst("\\.class$", ""))
                    .collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static TestNeeds needs() {
        return new TestNeeds(TestTagsTest.class.getClassLoader(), testCode());
    }

    @Test
    void everyTestThatReachesAMissingDependencySkipsWithoutIt() throws ClassNotFoundException {
        TestNeeds needs = needs();
        List<String> problems = new ArrayList<>();
        int checked = 0;
        for (String name : testCode().stream().sorted().toList()) {
            String binary = name.replace('/', '.');
            if (binary.startsWith(FIXTURES)) {
                continue; // the checker's own bad examples, below
            }
            Class<?> c = Class.forName(binary, false, TestTagsTest.class.getClassLoader());
            if (Arrays.stream(c.getDeclaredMethods()).anyMatch(TestNeeds::isTest)) {
                checked++;
                problems.addAll(needs.problems(c));
            }
        }
        assertTrue(checked > 50, "found only " + checked + " test classes in " + testClasses());
        assertEquals(List.of(), problems);
    }

    @Test
    void aTestThatLoadsNvrtcUntaggedIsFound() {
        List<String> problems = needs().problems(Untagged.class);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().contains("Untagged.compiles reaches NVRTC (TestTagsTest.Untagged.compiles -> Nvrtc.load) "
                + "without @NeedsNvrtc"), problems.getFirst());
    }

    @Test
    void aTagOnTheMethodOrTheClassIsEnough() {
        assertEquals(List.of(), needs().problems(TaggedMethod.class));
        assertEquals(List.of(), needs().problems(TaggedClass.class));
        assertEquals(List.of(), needs().problems(TaggedClass.Inner.class), "an enclosing class's tag covers");
    }

    @Test
    void whatJUnitRunsForTheWholeClassNeedsTheTagOnTheClass() {
        List<String> problems = needs().problems(BeforeAllLoads.class);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().contains("BeforeAllLoads.load reaches NVRTC")
                && problems.getFirst().contains("on the class"), problems.getFirst());
        List<String> statics = needs().problems(StaticLoads.class);
        assertEquals(1, statics.size(), statics.toString());
        assertTrue(statics.getFirst().contains("static initialiser reaches NVRTC"), statics.getFirst());
    }

    @Test
    void helpersAndLambdasAreFollowed() {
        List<String> problems = needs().problems(ThroughHelpers.class);
        assertEquals(2, problems.size(), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("ThroughHelpers.viaHelper reaches a GPU (TestTagsTest."
                + "ThroughHelpers.viaHelper -> TestTagsTest.Helper.device -> Gpu.open) without @GpuTest")), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.contains("ThroughHelpers.viaLambda reaches NVRTC")),
                problems.toString());
    }

    @Test
    void slurmIsAProcessStartedUnderASlurmCommandsName() {
        List<String> problems = needs().problems(SlurmCalls.class);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.getFirst().contains("SlurmCalls.allocates reaches Slurm")
                && problems.getFirst().contains("without @SlurmTest"), problems.getFirst());
    }

    // The checker's examples. Nested classes are never run (surefire excludes them, and they are not @Nested);
    // they exist to be read as bytecode.

    static class Untagged {
        @Test
        void compiles() {
            Nvrtc.load(Optional.empty());
        }

        @Test
        void needsNothing() {
            assertEquals(2, 1 + 1);
        }
    }

    static class TaggedMethod {
        @NeedsNvrtc
        @ParameterizedTest
        @ValueSource(ints = 1)
        void compiles(int n) {
            Nvrtc.load(Optional.empty());
        }
    }

    @NeedsNvrtc
    static class TaggedClass {
        @BeforeAll
        static void load() {
            Nvrtc.load(Optional.empty());
        }

        @Test
        void compiles() {
        }

        static class Inner {
            @Test
            void compiles() {
                Nvrtc.load(Optional.empty());
            }
        }
    }

    static class BeforeAllLoads {
        @BeforeAll
        static void load() {
            Nvrtc.load(Optional.empty());
        }

        @NeedsNvrtc
        @Test
        void compiles() {
        }
    }

    static class StaticLoads {
        static final Nvrtc NVRTC = Nvrtc.load(Optional.empty());

        @NeedsNvrtc
        @Test
        void compiles() {
        }
    }

    static final class Helper {
        static Gpu device() {
            return Gpu.open(0);
        }
    }

    static class ThroughHelpers {
        @Test
        void viaHelper() {
            Helper.device();
        }

        @Test
        void viaLambda() {
            Runnable r = () -> Nvrtc.load(Optional.empty());
            r.run();
        }

        @GpuTest
        @Test
        void tagged() {
            Helper.device();
        }
    }

    static class SlurmCalls {
        @Test
        void allocates() throws IOException {
            run("salloc", "--no-shell");
        }

        @Test
        void onlyNamesSrun() {
            assertEquals(List.of("srun", "--exact"), List.of("srun", "--exact"));
        }

        private static void run(String... command) throws IOException {
            new ProcessBuilder(command).start();
        }
    }
}
