package dev.kevo.export;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that compiles generated host C++ (no CUDA): tagged {@code compiler}, and skipped with a visible note where no
 * C++ compiler exists.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("compiler")
@ExtendWith(ToolCondition.class)
public @interface HostCompilerTest {
}
