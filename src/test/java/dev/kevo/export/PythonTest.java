package dev.kevo.export;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that runs Python 3 on generated Python (no torch): tagged {@code python}, and skipped with a visible note
 * where there is no python3 (or $KEVO_PYTHON).
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("python")
@ExtendWith(ToolCondition.class)
public @interface PythonTest {
}
