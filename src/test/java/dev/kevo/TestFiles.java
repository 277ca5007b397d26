package dev.kevo;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The repository's files as tests see them. */
public final class TestFiles {
    private TestFiles() {
    }

    public static Path root() {
        return Path.of(System.getProperty("kevo.root", "."));
    }

    public static List<Path> seeds() {
        return list(root().resolve("seeds"));
    }

    public static List<Path> planted() {
        return list(root().resolve("src/test/resources/planted"));
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".cu")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
