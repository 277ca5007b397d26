package dev.kevo.config;

import dev.kevo.KevoException;
import dev.kevo.data.ConfigFiles;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.nio.file.Path;
import java.util.List;

/** evaluator/suites/NAME.yaml: {@code description} and {@code shapes} as ROWSxCOLS strings. */
public record SuiteFile(String description, List<String> shapes) {

    public static Suite load(Path file) {
        SuiteFile raw = ConfigFiles.read(file, SuiteFile.class);
        if (raw.shapes() == null || raw.shapes().isEmpty()) {
            throw KevoException.input(file + ": 'shapes' must list at least one ROWSxCOLS shape");
        }
        String name = file.getFileName().toString().replaceFirst("\\.(yaml|yml|json)$", "");
        List<Shape> shapes = raw.shapes().stream().map(s -> {
            try {
                return Shape.parse(s);
            } catch (KevoException e) {
                throw KevoException.input(file + ": " + e.getMessage());
            }
        }).toList();
        return new Suite(name, raw.description() == null ? "" : raw.description(), shapes);
    }
}
