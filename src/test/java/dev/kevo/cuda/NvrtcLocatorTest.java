package dev.kevo.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.NeedsNvrtc;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvrtcLocatorTest {

    private static final List<String> SONAMES = List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2");

    @Test
    void candidatesInOrder() {
        Map<String, String> env = Map.of(
                "KEVO_NVRTC", "/opt/kevo/libnvrtc.so",
                "LD_LIBRARY_PATH", "/a/lib::/b/lib",
                "CUDA_HOME", "/cuda",
                "CUDA_PATH", "/cudapath");
        List<String> got = new NvrtcLocator(env).candidates();
        List<String> expected = new ArrayList<>();
        for (String soname : SONAMES) {
            for (String dir : List.of("/a/lib", "/b/lib", "/cuda/lib64", "/cuda/targets/x86_64-linux/lib",
                    "/cudapath/lib64", "/cudapath/targets/x86_64-linux/lib", "/usr/local/cuda/lib64",
                    "/usr/local/cuda/targets/x86_64-linux/lib")) {
                expected.add(dir + "/" + soname);
            }
            expected.add(soname);
        }
        assertEquals(expected, got);
    }

    @Test
    void newerSonamesComeFirstInEveryDirectory() {
        List<String> got = new NvrtcLocator(Map.of("LD_LIBRARY_PATH", "/x", "CUDA_HOME", "/c")).candidates();
        for (String dir : List.of("/x/", "/c/lib64/", "/usr/local/cuda/lib64/", "")) {
            int v13 = got.indexOf(dir + "libnvrtc.so.13");
            int v12 = got.indexOf(dir + "libnvrtc.so.12");
            int v11 = got.indexOf(dir + "libnvrtc.so.11.2");
            assertTrue(v13 >= 0 && v13 < v12 && v12 < v11, dir + ": " + got);
        }
        // every .so.13 location is tried before any .so.12 one
        int last13 = got.lastIndexOf("libnvrtc.so.13");
        assertTrue(got.subList(0, last13).stream().noneMatch(c -> c.endsWith(".so.12") || c.endsWith(".so.11.2")));
    }

    @Test
    void withoutConfigurationTheUsualPlaces() {
        List<String> got = new NvrtcLocator(Map.of()).candidates();
        assertEquals("/usr/local/cuda/lib64/libnvrtc.so.13", got.getFirst());
        assertEquals("libnvrtc.so.11.2", got.getLast());
        assertEquals(SONAMES.size() * 3, got.size());
    }

    @Test
    void theOptionWinsOverKevoNvrtcAndBlankValuesNameNothing() {
        NvrtcLocator withEnv = new NvrtcLocator(Map.of("KEVO_NVRTC", "/k/libnvrtc.so.12"));
        assertEquals(Optional.of(new NvrtcLocator.Named("/k/libnvrtc.so.12", "KEVO_NVRTC")),
                withEnv.named(Optional.empty()));
        assertEquals(Optional.of(new NvrtcLocator.Named("/conf/libnvrtc.so", "--nvrtc")),
                withEnv.named(Optional.of(Path.of("/conf/libnvrtc.so"))));
        NvrtcLocator blank = new NvrtcLocator(Map.of("KEVO_NVRTC", "  ", "CUDA_HOME", "", "LD_LIBRARY_PATH", ":"));
        assertEquals(Optional.empty(), blank.named(Optional.empty()));
        assertEquals(new NvrtcLocator(Map.of()).candidates(), blank.candidates());
    }

    @Test
    void noCandidateTwice() {
        List<String> got = new NvrtcLocator(Map.of("CUDA_HOME", "/usr/local/cuda",
                "LD_LIBRARY_PATH", "/usr/local/cuda/lib64")).candidates();
        assertEquals(got.stream().distinct().toList(), got);
        assertEquals(1, got.stream().filter(c -> c.equals("/usr/local/cuda/lib64/libnvrtc.so.13")).count());
    }

    /** A named library that does not load is an input error naming it, never a silent fall-back to another. */
    @Test
    void aNamedLibraryThatDoesNotLoadIsAnInputError(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing/libnvrtc.so");
        Path notALibrary = dir.resolve("libnvrtc.so.99");
        Files.writeString(notALibrary, "this is not an ELF file\n");
        KevoException absent = assertThrows(KevoException.class,
                () -> new NvrtcLocator(Map.of()).load(Optional.of(missing), Arena.ofAuto()));
        assertEquals("--nvrtc " + missing + ": no such file", absent.getMessage());
        assertEquals(KevoException.Kind.INPUT, absent.kind());
        KevoException broken = assertThrows(KevoException.class,
                () -> new NvrtcLocator(Map.of("KEVO_NVRTC", notALibrary.toString())).load(Optional.empty(),
                        Arena.ofAuto()));
        assertEquals("KEVO_NVRTC " + notALibrary + ": not a loadable library", broken.getMessage());
        assertEquals(KevoException.Kind.INPUT, broken.kind());
    }

    /**
     * What {@code kevo check} asks before it decides to skip compiling: a named library is taken as named (loading
     * it says what is wrong), an unnamed one is the first candidate that opens. The math library stands in for
     * NVRTC, so that this runs on a machine without one: opening is all that locate does.
     */
    @Test
    void locateTakesANamedLibraryAsNamedAndElseTheFirstThatOpens(@TempDir Path dir) throws IOException {
        Path missing = dir.resolve("missing/libnvrtc.so");
        assertEquals(Optional.of(missing.toString()), new NvrtcLocator(Map.of()).locate(Optional.of(missing)));
        assertEquals(Optional.of("/k/libnvrtc.so.12"),
                new NvrtcLocator(Map.of("KEVO_NVRTC", "/k/libnvrtc.so.12")).locate(Optional.empty()));
        // the first two candidates, both before any search of the system's library path: one that does not open,
        // then one that does
        Path lib64 = Files.createDirectories(dir.resolve("cuda/lib64"));
        Path targets = Files.createDirectories(dir.resolve("cuda/targets/x86_64-linux/lib"));
        Files.writeString(lib64.resolve("libnvrtc.so.13"), "this is not an ELF file\n");
        Files.copy(Path.of("/lib/x86_64-linux-gnu/libm.so.6"), targets.resolve("libnvrtc.so.13"));
        assertEquals(Optional.of(targets.resolve("libnvrtc.so.13").toString()),
                new NvrtcLocator(Map.of("CUDA_HOME", dir.resolve("cuda").toString())).locate(Optional.empty()));
    }

    @NeedsNvrtc
    @Test
    void aConfiguredLibraryIsUsedFirst(@TempDir Path dir) throws IOException {
        // find the real file of a loadable NVRTC, then offer it under a name no search would find
        NvrtcLocator.Found any = new NvrtcLocator(System.getenv()).load(Optional.empty(), Arena.ofAuto());
        Path real = loadedLibraryFile(any.location());
        Path alias = Files.createSymbolicLink(dir.resolve("my-nvrtc.so"), real);
        Path viaEnv = Files.createSymbolicLink(dir.resolve("env-nvrtc.so"), real);
        try {
            NvrtcLocator.Found found = new NvrtcLocator(Map.of()).load(Optional.of(alias), Arena.ofAuto());
            assertEquals(alias.toString(), found.location());
            assertEquals(viaEnv.toString(),
                    new NvrtcLocator(Map.of("KEVO_NVRTC", viaEnv.toString())).load(Optional.empty(), Arena.ofAuto())
                            .location());
        } finally {
            // links to outside the temp dir make JUnit warn at cleanup
            Files.delete(alias);
            Files.delete(viaEnv);
        }
    }

    /** The file behind a loaded library: the location itself when it is a path, else from /proc/self/maps. */
    private static Path loadedLibraryFile(String location) throws IOException {
        if (location.contains("/")) {
            return Path.of(location).toRealPath();
        }
        return Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .map(line -> line.substring(line.lastIndexOf(' ') + 1))
                .filter(p -> p.startsWith("/") && p.contains("libnvrtc.so"))
                .map(Path::of).findFirst().orElseThrow();
    }

    @Test
    void whenNothingLoadsTheMessageListsWhereItLooked(@TempDir Path dir) {
        Map<String, String> env = Map.of("LD_LIBRARY_PATH", dir.resolve("ld").toString(),
                "CUDA_HOME", dir.resolve("cuda").toString());
        NvrtcLocator locator = new NvrtcLocator(env);
        List<String> candidates = locator.candidates();
        // Every path candidate under the fake directories is missing. The bare sonames, last for each version,
        // may still load through the system's library path (they do on a machine with NVRTC installed), so the
        // negative case is checked on candidates(), and load() is checked for whichever way it goes.
        List<String> fake = candidates.stream().filter(c -> c.startsWith(dir.toString())).toList();
        // per soname: the LD_LIBRARY_PATH dir and CUDA_HOME's lib64 and targets dirs
        assertEquals(3 * SONAMES.size(), fake.size(), fake::toString);
        for (String c : fake) {
            assertFalse(Files.exists(Path.of(c)), c);
        }
        try {
            NvrtcLocator.Found found = locator.load(Optional.empty(), Arena.ofAuto());
            assertFalse(found.location().startsWith(dir.toString()), found.location());
        } catch (KevoException e) {
            assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
            assertTrue(e.getMessage().startsWith("no NVRTC library found"), e::getMessage);
            assertTrue(e.getMessage().contains("KEVO_NVRTC"), e::getMessage);
            assertTrue(e.getMessage().endsWith("looked for: " + String.join(", ", candidates)), e::getMessage);
        }
    }
}
