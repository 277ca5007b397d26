package dev.kevo.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where kevo looks for cuDNN, and what it says when it is missing or is not cuDNN; no cuDNN needed. */
class CudnnLocatorTest {

    @Test
    void cudnn9IsTriedEverywhereBeforeCudnn8AndLdLibraryPathComesFirst() {
        List<String> got = new CudnnLocator(Map.of("LD_LIBRARY_PATH", "/a:/b")).candidates();
        assertEquals("/a/libcudnn.so.9", got.get(0));
        assertEquals("/b/libcudnn.so.9", got.get(1));
        int last9 = got.lastIndexOf("libcudnn.so.9");
        int first8 = got.indexOf("/a/libcudnn.so.8");
        assertTrue(last9 >= 0 && last9 < first8, got::toString);
        assertTrue(got.subList(0, first8).stream().allMatch(c -> c.endsWith("libcudnn.so.9")), got::toString);
        assertEquals("libcudnn.so.8", got.getLast());
        assertTrue(got.contains("/usr/lib/x86_64-linux-gnu/libcudnn.so.9"), "Debian/Ubuntu's cuDNN folder");
        assertEquals(got.stream().distinct().toList(), got);
    }

    @Test
    void candidatesAreOpenedInOrderUntilOneLoads() {
        List<String> tried = new ArrayList<>();
        CudnnLocator locator = new CudnnLocator(Map.of(), (candidate, arena) -> {
            tried.add(candidate);
            return candidate.equals("libcudnn.so.8") ? Optional.of(SymbolLookup.loaderLookup()) : Optional.empty();
        });
        CudnnLocator.Found found = locator.load(Arena.ofAuto());
        assertEquals(locator.candidates(), tried);
        assertTrue(found.location().endsWith("libcudnn.so.8"), found.location());
    }

    @Test
    void withoutCudnnTheErrorSaysSoAndListsEveryPlace() {
        CudnnLocator locator = new CudnnLocator(Map.of("CUDA_HOME", "/c"), (c, a) -> Optional.empty());
        KevoException e = assertThrows(KevoException.class, () -> locator.load(Arena.ofAuto()));
        assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
        assertTrue(e.getMessage().startsWith(CudnnLocator.NOT_FOUND), e.getMessage());
        assertTrue(e.getMessage().contains("/c/lib64/libcudnn.so.9") && e.getMessage().contains("KEVO_CUDNN"),
                e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line");
    }

    /** $KEVO_CUDNN is a choice: missing is an error naming it (exit 3), never a fall-back to the system's cuDNN. */
    @Test
    void aMissingKevoCudnnIsAnErrorNotAFallBack(@TempDir Path dir) {
        Path missing = dir.resolve("nowhere/libcudnn.so.9");
        List<String> tried = new ArrayList<>();
        CudnnLocator locator = new CudnnLocator(Map.of("KEVO_CUDNN", missing.toString()), (c, a) -> {
            tried.add(c);
            return Optional.of(SymbolLookup.loaderLookup());
        });
        KevoException e = assertThrows(KevoException.class, () -> locator.load(Arena.ofAuto()));
        assertEquals(KevoException.Kind.ENVIRONMENT, e.kind());
        assertEquals("cuDNN " + missing + " (KEVO_CUDNN): no such file", e.getMessage());
        assertEquals(List.of(), tried, "nothing else was tried");
    }

    @Test
    void aFileThatIsNotALibraryIsNamed(@TempDir Path dir) throws IOException {
        Path text = dir.resolve("libcudnn.so.9");
        Files.writeString(text, "not an ELF file\n");
        KevoException e = assertThrows(KevoException.class,
                () -> new CudnnLocator(Map.of("KEVO_CUDNN", text.toString())).load(Arena.ofAuto()));
        assertEquals("cuDNN " + text + " (KEVO_CUDNN): not a loadable library", e.getMessage());
        assertEquals(3, e.kind().exitCode().code());
    }

    @Test
    void kevoCudnnOverridesARecordedLibraryAndBlankNamesNothing() {
        CudnnLocator withEnv = new CudnnLocator(Map.of("KEVO_CUDNN", "/k/libcudnn.so.9"));
        assertEquals(Optional.of(new CudnnLocator.Named("/k/libcudnn.so.9", "KEVO_CUDNN")),
                withEnv.named(Optional.of("/recorded/libcudnn.so.9")));
        CudnnLocator blank = new CudnnLocator(Map.of("KEVO_CUDNN", " "));
        assertEquals(Optional.of(new CudnnLocator.Named("/recorded/libcudnn.so.9", "recorded")),
                blank.named(Optional.of("/recorded/libcudnn.so.9")));
        assertEquals(Optional.empty(), blank.named(Optional.empty()));
    }

    @Test
    void theFolderOfALibraryOpenedBySonameComesFromTheMappings() {
        List<String> maps = List.of(
                "7f00-7f10 r--p 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/libz.so.1.2.13",
                "7f20-7f30 r-xp 00000000 08:01 456 /usr/lib/x86_64-linux-gnu/libcudnn.so.9.14.0",
                "7ffd-7ffe rw-p 00000000 00:00 0 [stack]");
        assertEquals(Optional.of("/usr/lib/x86_64-linux-gnu"), CudnnLocator.mappedFolder(maps, "libcudnn.so.9"));
        assertEquals(Optional.empty(), CudnnLocator.mappedFolder(maps, "libcudnn.so.8"));
    }

    @Test
    void majorVersionOfALibraryName() {
        assertEquals("9", CudnnLocator.majorOf("libcudnn.so.9"));
        assertEquals("9", CudnnLocator.majorOf("libcudnn.so.9.14.0"));
        assertEquals("8", CudnnLocator.majorOf("libcudnn.so.8"));
        assertEquals("", CudnnLocator.majorOf("libcudnn.so"));
    }
}
