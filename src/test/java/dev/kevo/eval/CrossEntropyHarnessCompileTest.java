package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A loss's build of kevo's kernels (TrustedKernels.source for cross_entropy: the constants, harness.cu, its score and
 * reference, then harness_cross_entropy.cu) compiles and defines every kernel the evaluator looks up by name, the
 * loss's (CrossEntropyKernels) beside the forward's (TrustedKernels), so that a kernel renamed on one side does not
 * wait for a GPU to be found missing.
 */
@NeedsNvrtc
class CrossEntropyHarnessCompileTest {

    static List<Precision> dtypes() {
        return Precision.SUPPORTED;
    }

    @Exhaustive
    @ParameterizedTest
    @MethodSource("dtypes")
    void theLossHarnessCompilesInEveryDtype(Precision dtype) throws IOException {
        harnessCompiles(dtype);
    }

    /** A 16-bit x with a float32 dx, the dtype that exercises both element types, for the mean (CI's second pass). */
    @Test
    @Exhaustive
    void theLossHarnessCompiles() throws IOException {
        harnessCompiles(Precision.BF16_FP32);
    }

    /** The sum (cross_entropy_sum: the same harness with KV_CE_MEAN 0) in float32: CI's second pass. */
    @Test
    @Exhaustive
    void theSumsHarnessCompiles() throws IOException {
        harnessCompiles(new Task(Operators.CROSS_ENTROPY_SUM, Precision.FP32));
    }

    private static void harnessCompiles(Precision dtype) throws IOException {
        harnessCompiles(new Task(Operators.CROSS_ENTROPY, dtype));
    }

    private static void harnessCompiles(Task task) throws IOException {
        Precision dtype = task.dtype();
        String source = TrustedKernels.source(task);
        assertTrue(source.contains("#define KV_CE_MEAN " + (task.op().equals(Operators.CROSS_ENTROPY) ? 1 : 0)),
                "the harness is told the reduction");
        Compilation c = Nvrtc.load(Optional.empty()).compile(TrustedKernels.SOURCE_NAME, source, Prelude.headers(),
                "sm_90");
        List<String> loss = BackwardReferenceCompileTest.lookedUp("CrossEntropyKernels.java");
        assertTrue(loss.containsAll(List.of("kevo_generate_labels", "kevo_cross_entropy_totals",
                "kevo_compare_cross_entropy")), loss::toString);
        for (String kernel : Stream.concat(loss.stream(),
                BackwardReferenceCompileTest.lookedUp("TrustedKernels.java").stream()).toList()) {
            assertTrue(c.definesKernel(kernel), dtype.id() + ": " + kernel);
        }
    }
}
