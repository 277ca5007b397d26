package dev.kevo.report;

import dev.kevo.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The recorded campaign folder the report tests read: the sample campaign shipped in mutations/ for newcomers
 * (mutations/default-h100.md says what it holds). Tests that write copy it first.
 */
final class ReportFixture {
    static final String CHAMPION = "g0018-i3-c2";

    private ReportFixture() {
    }

    static Path folder() {
        return TestFiles.root().resolve("mutations/default-h100");
    }

    /** A writable copy, for tests that write into the folder or change it. */
    static Path copy(Path into) {
        Path target = into.resolve("default-h100");
        try (Stream<Path> files = Files.list(folder())) {
            Files.createDirectories(target);
            for (Path f : files.toList()) {
                Files.copy(f, target.resolve(f.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return target;
    }
}
