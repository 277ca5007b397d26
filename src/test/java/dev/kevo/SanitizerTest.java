package dev.kevo;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that runs kernels under NVIDIA's compute-sanitizer: tagged {@code sanitizer}, and skipped with a visible
 * note where there is no compute-sanitizer or no GPU to run it on (it needs both, and NVRTC, which a CUDA toolkit
 * that has the sanitizer has too).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("sanitizer")
@ExtendWith(SanitizerCondition.class)
public @interface SanitizerTest {
}
