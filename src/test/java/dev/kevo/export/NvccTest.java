package dev.kevo.export;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/** A test that compiles generated CUDA with nvcc: tagged {@code nvcc}, and skipped with a visible note without it. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("nvcc")
@ExtendWith(ToolCondition.class)
public @interface NvccTest {
}
