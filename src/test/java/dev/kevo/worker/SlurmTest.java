package dev.kevo.worker;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test that needs a Slurm cluster (tools/slurm-local.sh starts one on the loopback): tagged {@code slurm}, and
 * skipped with a visible note where none answers, unless KEVO_REQUIRE_SLURM is set (CI), where it must run.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("slurm")
@ExtendWith(SlurmCondition.class)
public @interface SlurmTest {
}
