package dev.kevo.task;

import java.util.List;

/** A named list of shapes a candidate is judged on. */
public record Suite(String name, String description, List<Shape> shapes) {
    public Suite {
        if (shapes.isEmpty()) {
            throw new IllegalArgumentException("suite " + name + " has no shapes");
        }
        shapes = List.copyOf(shapes);
    }
}
