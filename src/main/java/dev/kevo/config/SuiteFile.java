package dev.kevo.config;

import dev.kevo.KevoException;
import dev.kevo.data.ConfigFiles;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Shape;
import dev.kevo.task.Suite;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * evaluator/suites/NAME.yaml: {@code description} and {@code shapes} as {@code ROWSxCOLS} or
 * {@code BATCHxHEADSxQUERIESxKEYS} strings, each optionally {@code :MASK}; and {@code masks}, mask kinds that every
 * shape naming none is judged under, one suite shape per kind, in the order listed (without it, such a shape is
 * masked by nothing). A suite of attention shapes lists its shapes once and judges and times each in every kind.
 */
public record SuiteFile(String description, List<String> shapes, List<String> masks) {

    public static Suite load(Path file) {
        SuiteFile raw = ConfigFiles.read(file, SuiteFile.class);
        if (raw.shapes() == null || raw.shapes().isEmpty()) {
            throw KevoException.input(file + ": 'shapes' must list at least one ROWSxCOLS shape");
        }
        String name = file.getFileName().toString().replaceFirst("\\.(yaml|yml|json)$", "");
        List<MaskKind> kinds = raw.masks() == null ? List.of() : raw.masks().stream().map(id -> {
            try {
                return MaskKind.byId(id);
            } catch (IllegalArgumentException e) {
                throw KevoException.input(file + ": 'masks': " + e.getMessage());
            }
        }).toList();
        if (raw.masks() != null && kinds.isEmpty()) {
            throw KevoException.input(file + ": 'masks' must list at least one mask kind (" + MaskKind.ids()
                    + "), or be left out");
        }
        Set<Shape> shapes = new LinkedHashSet<>();
        for (String text : raw.shapes()) {
            Shape shape;
            try {
                shape = Shape.parse(text);
            } catch (KevoException e) {
                throw KevoException.input(file + ": " + e.getMessage());
            }
            // A shape that names its kind is that kind alone; one that names none takes each of 'masks'.
            List<Shape> judged = kinds.isEmpty() || text.contains(":") ? List.of(shape)
                    : kinds.stream().map(shape::withMask).toList();
            for (Shape s : judged) {
                if (!shapes.add(s)) {
                    throw KevoException.input(file + ": shape " + s + " is listed twice");
                }
            }
        }
        return new Suite(name, raw.description() == null ? "" : raw.description(), new ArrayList<>(shapes));
    }
}
