package dev.kevo.export;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that needs a Python with torch (a CPU build is enough: no GPU is used): tagged {@code torch}, and skipped with
 * a visible note where neither $KEVO_TORCH_PYTHON nor python3 imports torch. With {@link NvccTest} it needs nvcc too.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("torch")
@ExtendWith(ToolCondition.class)
public @interface TorchTest {
}
