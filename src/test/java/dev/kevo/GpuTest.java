package dev.kevo;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** A test that needs a CUDA device: tagged {@code gpu}, and skipped with a visible note where there is none. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("gpu")
@ExtendWith(GpuCondition.class)
public @interface GpuTest {
}
