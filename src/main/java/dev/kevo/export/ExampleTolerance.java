package dev.kevo.export;

import dev.kevo.data.Dtype;
import dev.kevo.data.Tolerance;
import java.math.BigDecimal;
import java.util.Map;

/**
 * The tolerance an exported package's examples check with: the operator's own (float32's, what kevo judges by), its
 * relative bounds widened by what rounding to y's type may cost (half a unit in the last place: 2^-8 in bf16, 2^-11 in
 * fp16, written 4e-3 and 5e-4). kevo itself adds one unit in the last place per element; an example needs no more
 * than a simple bound to tell a working package from a broken one. Written as decimals, as C and Python read them.
 */
record ExampleTolerance(BigDecimal absolute, BigDecimal relative, BigDecimal relativeL2) {

    static ExampleTolerance of(Tolerance op, Dtype y) {
        BigDecimal rounding = switch (y) {
            case FP32 -> BigDecimal.ZERO;
            case BF16 -> new BigDecimal("4e-3");
            case FP16 -> new BigDecimal("5e-4");
        };
        return new ExampleTolerance(decimal(op.absolute()), decimal(op.relative()).add(rounding),
                decimal(op.relativeL2()).add(rounding));
    }

    private static BigDecimal decimal(double v) {
        return new BigDecimal(Double.toString(v));
    }

    /** {@code ABS_TOL}, {@code REL_TOL} and {@code REL_L2}, for the examples' templates. */
    Map<String, String> slots() {
        return Map.of("ABS_TOL", text(absolute), "REL_TOL", text(relative), "REL_L2", text(relativeL2));
    }

    /** e.g. {@code 1E-6}, {@code 0.0041}: a literal C and Python both read as that decimal. */
    private static String text(BigDecimal v) {
        return v.stripTrailingZeros().toString();
    }
}
