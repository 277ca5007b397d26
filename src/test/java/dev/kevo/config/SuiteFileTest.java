package dev.kevo.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SuiteFileTest {

    private static final Path SUITES = Path.of(System.getProperty("kevo.root", "."), "evaluator/suites");

    private static List<String> names(Suite suite) {
        return suite.shapes().stream().map(Shape::toString).toList();
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in: " + message);
        }
    }

    @Test
    void standardSuite() {
        Suite suite = SuiteFile.load(SUITES.resolve("standard.yaml"));
        assertEquals("standard", suite.name());
        assertEquals(List.of("32x128", "1823x781", "1024x1000", "256x4096", "512x4096", "1024x2048", "1024x4096",
                "4096x4096", "4096x12288", "4096x32000", "2048x128256", "512x262144", "65536x128", "32x50257", "8x128256",
                "1x1000000", "1x10000000"),
                names(suite));
        assertTrue(suite.description().startsWith("The standard suite"), suite.description());
        assertFalse(suite.description().contains("\n"), "folded YAML scalar is one line");
    }

    @Test
    void seed004Suite() {
        Suite suite = SuiteFile.load(SUITES.resolve("seed004.yaml"));
        assertEquals("seed004", suite.name());
        assertEquals(List.of("256x4096", "512x4096", "1024x2048", "1024x4096"), names(suite));
        assertTrue(SuiteFile.load(SUITES.resolve("standard.yaml")).shapes().containsAll(suite.shapes()),
                "the standard suite includes the seed004 suite's fitness shapes");
    }

    @Test
    void quickSuite() {
        Suite suite = SuiteFile.load(SUITES.resolve("quick.yaml"));
        assertEquals("quick", suite.name());
        assertFalse(suite.shapes().isEmpty());
        assertFalse(suite.description().isBlank());
        assertEquals(suite.shapes().size(), suite.shapes().stream().distinct().count());
    }

    @Test
    void everySuiteFileLoads() throws IOException {
        try (var files = Files.list(SUITES)) {
            List<Path> all = files.filter(p -> p.toString().endsWith(".yaml")).toList();
            assertTrue(all.size() >= 3, all::toString);
            for (Path p : all) {
                Suite suite = SuiteFile.load(p);
                assertEquals(suite.shapes().size(), suite.shapes().stream().distinct().count(), p + " repeats a shape");
            }
        }
    }

    @Test
    void nameComesFromTheFileName(@TempDir Path dir) throws IOException {
        Path json = dir.resolve("mine.json");
        Files.writeString(json, "{\"description\": \"d\", \"shapes\": [\"3x4\"]}");
        Suite suite = SuiteFile.load(json);
        assertEquals("mine", suite.name());
        assertEquals(List.of(new Shape(3, 4)), suite.shapes());
        Path yml = dir.resolve("other.yml");
        Files.writeString(yml, "shapes: [5x6]\n");
        Suite noDescription = SuiteFile.load(yml);
        assertEquals("other", noDescription.name());
        assertEquals("", noDescription.description());
    }

    @Test
    void unknownKeyNamesFileLineAndKey(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "description: typo below\nshapes: [32x128]\nshape: [1x1]\n");
        KevoException e = assertThrows(KevoException.class, () -> SuiteFile.load(file));
        assertTrue(e.getMessage().startsWith(file + ":3: unknown key 'shape'"), e::getMessage);
        assertContains(e.getMessage(), "description, masks, shapes");
        assertEquals(KevoException.Kind.INPUT, e.kind());

        Files.writeString(file, "descripton: typo\nshapes: [32x128]\n");
        KevoException scalar = assertThrows(KevoException.class, () -> SuiteFile.load(file));
        assertTrue(scalar.getMessage().matches(java.util.regex.Pattern.quote(file.toString())
                + ":\\d+: unknown key 'descripton' .*"), scalar::getMessage);
    }

    @Test
    void unknownScalarKeyNamesItsOwnLine(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "descripton: typo\nshapes: [32x128]\n");
        KevoException e = assertThrows(KevoException.class, () -> SuiteFile.load(file));
        assertTrue(e.getMessage().startsWith(file + ":1: unknown key 'descripton'"), e::getMessage);
    }

    @Test
    void badShapeString(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("bad.yaml");
        Files.writeString(file, "description: d\nshapes:\n  - 32x128\n  - 12by4\n");
        KevoException e = assertThrows(KevoException.class, () -> SuiteFile.load(file));
        assertContains(e.getMessage(), file.toString(), "'12by4'", "ROWSxCOLS");
        Files.writeString(file, "shapes: [0x5]\n");
        assertContains(assertThrows(KevoException.class, () -> SuiteFile.load(file)).getMessage(),
                file.toString(), "0x5", "positive");
    }

    @Test
    void emptyOrMissingShapes(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("empty.yaml");
        for (String text : List.of("description: d\nshapes: []\n", "description: d\n")) {
            Files.writeString(file, text);
            KevoException e = assertThrows(KevoException.class, () -> SuiteFile.load(file));
            assertEquals(file + ": 'shapes' must list at least one ROWSxCOLS shape", e.getMessage());
        }
    }

    @Test
    void wrongTypesAndMissingFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("scalar.yaml");
        Files.writeString(file, "description: d\nshapes: 32x128\n");
        KevoException e = assertThrows(KevoException.class, () -> SuiteFile.load(file));
        assertTrue(e.getMessage().startsWith(file + ":2: 'shapes'"), e::getMessage);
        assertFalse(e.getMessage().contains("\n"));

        Path missing = dir.resolve("missing.yaml");
        assertEquals(missing + ": no such file",
                assertThrows(KevoException.class, () -> SuiteFile.load(missing)).getMessage());

        Path malformed = dir.resolve("malformed.yaml");
        Files.writeString(malformed, "shapes: [32x128\n");
        KevoException m = assertThrows(KevoException.class, () -> SuiteFile.load(malformed));
        assertTrue(m.getMessage().startsWith(malformed + ":"), m::getMessage);
        assertFalse(m.getMessage().contains("\n"), m::getMessage);
    }

    /** 'masks' judges every shape that names no kind once per kind, in order; a shape that names its kind is that alone. */
    @Test
    void masksExpandEveryShapeThatNamesNone(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("att.yaml");
        Files.writeString(file, "masks: [causal, additive]\nshapes: [2x4x8x16, 1x2x3x5:padding, 7x9]\n");
        assertEquals(List.of("2x4x8x16:causal", "2x4x8x16:additive", "1x2x3x5:padding", "7x9:causal", "7x9:additive"),
                names(SuiteFile.load(file)));
        Files.writeString(file, "shapes: [2x4x8x16, 1x2x3x5:padding]\n");
        assertEquals(List.of("2x4x8x16", "1x2x3x5:padding"), names(SuiteFile.load(file)), "no masks: none");
    }

    @Test
    void badMasksAndRepeatedShapesAreInputErrors(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("att.yaml");
        Files.writeString(file, "masks: [causal, sliding]\nshapes: [2x4x8x16]\n");
        KevoException kind = assertThrows(KevoException.class, () -> SuiteFile.load(file));
        assertEquals(file + ": 'masks': unknown mask kind 'sliding' (known: none, causal, padding, additive)",
                kind.getMessage());
        Files.writeString(file, "masks: []\nshapes: [2x4x8x16]\n");
        assertContains(assertThrows(KevoException.class, () -> SuiteFile.load(file)).getMessage(), file.toString(),
                "'masks' must list at least one mask kind");
        Files.writeString(file, "masks: [causal]\nshapes: [2x4x8x16, 2x4x8x16:causal]\n");
        assertEquals(file + ": shape 2x4x8x16:causal is listed twice",
                assertThrows(KevoException.class, () -> SuiteFile.load(file)).getMessage());
    }

    /** The attention suites judge every shape in every mask kind, prefill and decode over 128K keys among them. */
    @Test
    void theAttentionSuitesJudgeEveryShapeInEveryKind() {
        for (String name : List.of("attention", "attention-quick")) {
            Suite suite = SuiteFile.load(SUITES.resolve(name + ".yaml"));
            java.util.Map<dev.kevo.data.MaskKind, Long> perKind = suite.shapes().stream().collect(
                    java.util.stream.Collectors.groupingBy(Shape::mask, java.util.stream.Collectors.counting()));
            assertEquals(4, perKind.size(), name + ": " + perKind);
            assertEquals(1, perKind.values().stream().distinct().count(), name + ": as many shapes of each kind");
            assertTrue(suite.shapes().stream().anyMatch(s -> s.queries() > s.keys()), name + ": more queries than keys");
            assertTrue(suite.shapes().stream().anyMatch(s -> s.cols() >= 131072 && s.queries() <= 16),
                    name + ": decode over 128K keys");
            assertTrue(suite.shapes().stream().anyMatch(s -> s.batch() > 1), name + ": batches, where padding masks");
        }
        List<String> full = names(SuiteFile.load(SUITES.resolve("attention.yaml")));
        assertTrue(full.contains("1x32x4096x4096:causal"), "32 heads x 4096 queries x 4096 keys, prefill");
    }
}
