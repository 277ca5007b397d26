package dev.kevo.cuda;

import dev.kevo.NeedsNvrtc;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The on-disk cache of kevo's own cubins, with a real NVRTC: hits, misses, damage and where it lives. */
@NeedsNvrtc
class CompileCacheTest {
    private static final String SOURCE = "#include \"kevo.h\"\nextern \"C\" __global__ void k(float* y) { y[0] = KEVO_INF; }\n";
    private static Nvrtc nvrtc;

    @BeforeAll
    static void load() {
        nvrtc = Nvrtc.load(Optional.empty());
    }

    private static List<Path> cubins(Path dir) throws Exception {
        try (var files = Files.list(dir.resolve("cubin"))) {
            return files.filter(p -> p.toString().endsWith(".cubin")).toList();
        }
    }

    @Test
    void theSecondCompileComesFromDiskWithTheSameCubin(@TempDir Path dir) throws Exception {
        CompileCache cache = CompileCache.at(dir);
        Compilation first = cache.compile(nvrtc, "k.cu", SOURCE, Prelude.headers(), "sm_90");
        Compilation second = cache.compile(nvrtc, "k.cu", SOURCE, Prelude.headers(), "sm_90");
        assertArrayEquals(first.cubin(), second.cubin());
        assertEquals(Duration.ZERO, second.time(), "no compile the second time");
        assertTrue(second.options().getFirst().startsWith("(cached "), second.options().toString());
        assertEquals(1, cubins(dir).size());
        cache.compile(nvrtc, "k.cu", SOURCE.replace("KEVO_INF", "1.0f"), Prelude.headers(), "sm_90");
        cache.compile(nvrtc, "k.cu", SOURCE, Prelude.headers(), "sm_80");
        assertEquals(3, cubins(dir).size(), "another source or architecture is another entry");
    }

    @Test
    void aDamagedEntryIsCompiledAgainNotLoaded(@TempDir Path dir) throws Exception {
        CompileCache cache = CompileCache.at(dir);
        Compilation fresh = cache.compile(nvrtc, "k.cu", SOURCE, Prelude.headers(), "sm_90");
        Path entry = cubins(dir).getFirst();
        byte[] stored = Files.readAllBytes(entry);
        stored[stored.length - 1] ^= 1;
        Files.write(entry, stored);
        Compilation again = cache.compile(nvrtc, "k.cu", SOURCE, Prelude.headers(), "sm_90");
        assertArrayEquals(fresh.cubin(), again.cubin());
        assertTrue(again.time().compareTo(Duration.ZERO) > 0, "compiled, not read");
    }

    @Test
    void itLivesWhereTheEnvironmentSaysOrNowhere() {
        assertEquals(Optional.of(Path.of("/c")), CompileCache.fromEnvironment(Map.of("KEVO_CACHE", "/c", "HOME", "/h")).dir());
        assertEquals(Optional.empty(), CompileCache.fromEnvironment(Map.of("KEVO_CACHE", "off", "HOME", "/h")).dir());
        assertEquals(Optional.of(Path.of("/x/kevo")),
                CompileCache.fromEnvironment(Map.of("XDG_CACHE_HOME", "/x", "HOME", "/h")).dir());
        assertEquals(Optional.of(Path.of("/h/.cache/kevo")), CompileCache.fromEnvironment(Map.of("HOME", "/h")).dir());
        assertEquals(Optional.empty(), CompileCache.fromEnvironment(Map.of()).dir());
    }

    @Test
    void factsAreRememberedExactlyAndNotWithoutACache(@TempDir Path dir) {
        CompileCache cache = CompileCache.at(dir);
        assertTrue(!cache.remembers("baseline passed\0b.cu\0H100"));
        cache.remember("baseline passed\0b.cu\0H100");
        assertTrue(cache.remembers("baseline passed\0b.cu\0H100"));
        assertTrue(!cache.remembers("baseline passed\0b.cu\0H200"), "another device is another fact");
        CompileCache none = CompileCache.none();
        none.remember("x");
        assertTrue(!none.remembers("x"));
    }

    @Test
    void anUnwritableCacheOnlyCostsACompile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("not-a-directory");
        Files.writeString(file, "x");
        Compilation c = CompileCache.at(file).compile(nvrtc, "k.cu", SOURCE, Prelude.headers(), "sm_90");
        assertTrue(c.cubin().length > 0);
    }
}
