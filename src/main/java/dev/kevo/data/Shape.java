package dev.kevo.data;

import dev.kevo.KevoException;

/**
 * A problem size: {@code rows} independent rows of {@code cols} contiguous elements. Rows and cols are each an
 * int (a kernel takes them as int), their product is not: past 2^31 elements is where 32-bit offsets go wrong, and
 * kevo checks champions there.
 */
public record Shape(int rows, int cols) {

    public Shape {
        if (rows < 1 || cols < 1) {
            throw KevoException.input("shape " + rows + "x" + cols + ": rows and cols must be positive");
        }
    }

    /** Parses {@code ROWSxCOLS}, e.g. {@code 4096x4096}. */
    public static Shape parse(String text) {
        String[] parts = text.trim().toLowerCase().split("x", -1);
        if (parts.length != 2) {
            throw KevoException.input("shape '" + text + "': expected ROWSxCOLS, e.g. 4096x4096");
        }
        try {
            return new Shape(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
        } catch (NumberFormatException e) {
            throw KevoException.input("shape '" + text + "': expected ROWSxCOLS, e.g. 4096x4096");
        }
    }

    public long elements() {
        return (long) rows * cols;
    }

    @Override
    public String toString() {
        return rows + "x" + cols;
    }
}
