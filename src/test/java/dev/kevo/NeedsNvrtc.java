package dev.kevo;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that compiles with a real NVRTC (no GPU): tagged {@code nvrtc}, and skipped with a visible note where no
 * NVRTC library loads, so that the README's test command passes on a fresh machine.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("nvrtc")
@ExtendWith(NvrtcCondition.class)
public @interface NeedsNvrtc {
}
