package dev.kevo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Data flows one way: what is configured or saved (data), config, agent, evaluator, store, report. This reads every main source's imports
 * and checks that no package imports one above it, so a cycle (store and evolve once imported each other) cannot
 * come back unnoticed.
 */
class LayeringTest {

    /**
     * Bottom to top. Packages on one line are peers: neither may import the other. {@code dev.kevo} itself holds
     * only the exception every layer throws; {@code data} holds every record that is configured or saved, so
     * it may import nothing else of kevo's.
     */
    static final List<List<String>> LAYERS = List.of(
            List.of(""),
            List.of("data"),
            List.of("task.op"),
            List.of("cuda", "task"),
            List.of("config"),
            List.of("eval"),
            List.of("worker", "agent"),
            List.of("agent.llm"),
            List.of("store"),
            List.of("evolve"),
            List.of("export", "report"),
            List.of("cli"));

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?dev\\.kevo\\.((?:[a-z]+\\.)*)[A-Z]",
            Pattern.MULTILINE);
    private static final Path MAIN = Path.of("src/main/java/dev/kevo");

    static int layer(String pkg) {
        for (int i = 0; i < LAYERS.size(); i++) {
            if (LAYERS.get(i).contains(pkg)) {
                return i;
            }
        }
        return -1;
    }

    /** Package (relative to dev.kevo, "" for the root) to the packages its sources import. */
    static Map<String, List<String>> imports() {
        Map<String, List<String>> out = new TreeMap<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String pkg = MAIN.relativize(f.getParent()).toString().replace('/', '.');
                Matcher m = IMPORT.matcher(Files.readString(f));
                List<String> deps = out.computeIfAbsent(pkg, k -> new ArrayList<>());
                while (m.find()) {
                    String dep = m.group(1).isEmpty() ? "" : m.group(1).substring(0, m.group(1).length() - 1);
                    if (!dep.equals(pkg) && !deps.contains(dep)) {
                        deps.add(dep);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    @Test
    void everyPackageHasALayer() {
        List<String> unplaced = imports().keySet().stream().filter(p -> layer(p) < 0).toList();
        assertEquals(List.of(), unplaced, "packages missing from LayeringTest.LAYERS: place each above what it uses");
    }

    @Test
    void noPackageImportsOneAtOrAboveItsOwnLayer() {
        Map<String, List<String>> imports = imports();
        assertTrue(imports.size() > 10, "read the main sources (run from the checkout's root): " + imports.keySet());
        List<String> upward = new ArrayList<>();
        imports.forEach((pkg, deps) -> {
            for (String dep : deps) {
                if (layer(dep) >= layer(pkg)) {
                    upward.add("dev.kevo." + pkg + " imports dev.kevo." + dep);
                }
            }
        });
        assertEquals(List.of(), upward, "imports that run sideways or back up the layers");
    }

    @Test
    void theCheckSeesAnUpwardImport() {
        // The rule itself: a store class importing evolve, the cycle this test exists for, is reported.
        assertTrue(layer("evolve") > layer("store"));
        Matcher m = IMPORT.matcher("import dev.kevo.evolve.Campaign;\nimport dev.kevo.agent.llm.ChatModels;");
        assertTrue(m.find());
        assertEquals("evolve.", m.group(1));
        assertTrue(m.find());
        assertEquals("agent.llm.", m.group(1));
    }
}
