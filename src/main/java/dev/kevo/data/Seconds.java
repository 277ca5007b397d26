package dev.kevo.data;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * A configured duration written back in seconds, as a config gives it ({@code 120}, {@code 0.5}): limits and timeouts
 * are configured in fractional seconds, and a message that said {@link Duration#toSeconds()} reported a limit of
 * 0.5 s as 0 s.
 */
public final class Seconds {
    private Seconds() {
    }

    /** {@code duration} in seconds, to the millisecond, without trailing zeros. */
    public static String of(Duration duration) {
        return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString();
    }
}
