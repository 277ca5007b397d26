package dev.kevo.task;

import dev.kevo.data.Shape;
import java.util.List;

/** A named list of shapes a candidate is judged on. */
public record Suite(String name, String description, List<Shape> shapes) {
    public Suite {
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("suite " + name + " has no shapes");
        }
        shapes = List.copyOf(shapes);
    }

    /** A suite as a campaign or a worker message carries it: a name and its shapes as text ({@code 32x128}). */
    public static Suite of(String name, List<String> shapes) {
        return new Suite(name, "", shapes.stream().map(Shape::parse).toList());
    }
}
