package dev.kevo.export;

import dev.kevo.KevoException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What a kernel is exported as. */
public enum ExportTarget {
    /** The kernels and a CUDA runtime launcher, for a C++ program built with nvcc. */
    CPP,
    /**
     * The same code as a PyTorch C++/CUDA extension exposing the operator as a function of its inputs, e.g.
     * {@code softmax(x, dim=-1)} or {@code log_softmax(x, dim=-1)}.
     */
    TORCH;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ExportTarget of(String text) {
        for (ExportTarget t : values()) {
            if (t.id().equals(text.trim().toLowerCase(Locale.ROOT))) {
                return t;
            }
        }
        throw KevoException.input("--to " + text + ": expected one of " + Arrays.stream(values())
                .map(ExportTarget::id).collect(Collectors.joining(", ")));
    }
}
