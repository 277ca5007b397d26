package dev.kevo;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that compiles everything of a kind (every genome sampled, every knob value, every seed with nvcc) where a
 * test beside it compiles a representative few: tagged {@code exhaustive}, and skipped with a visible note unless
 * {@code KEVO_EXHAUSTIVE=1}, which CI's second pass sets. It keeps the README's {@code mvn verify} within minutes
 * on two cores without losing the exhaustive coverage, which CI still runs on every change.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("exhaustive")
@ExtendWith(ExhaustiveCondition.class)
public @interface Exhaustive {
}
