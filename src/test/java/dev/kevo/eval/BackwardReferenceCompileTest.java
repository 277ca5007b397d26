package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.NeedsNvrtc;
import dev.kevo.TestFiles;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileException;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The backward operators' GPU reference (row_dot.cu and each operator's own file) compiles behind kevo.h and defines
 * what the harness's walk over y and dy calls: the dot product's start, fold and merge, and the expected dx. A stand-in
 * walk here (a warp a row, the chunks merged by shuffles, as kevo_dot_chunks folds a row) uses every function apart
 * from the harness, so a reference that leaves one out fails to compile here; and the harness's own build of them
 * defines every kernel the evaluator launches.
 */
@NeedsNvrtc
class BackwardReferenceCompileTest {
    private static final String WALK = """
            extern "C" __global__ void bw_reference(double* dx, double* scale, const float* y, const float* dy, int rows,
                                                    int cols) {
                const long long r = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
                const int lane = threadIdx.x & 31;
                if (r >= rows) return;
                double2 s = kv_dot_start();
                for (int c = lane; c < cols; c += 32) s = kv_dot_add(s, y[r * cols + c], dy[r * cols + c]);
                for (int o = 16; o > 0; o >>= 1) {
                    s = kv_dot_merge(s, make_double2(__shfl_xor_sync(0xffffffffu, s.x, o),
                                                     __shfl_xor_sync(0xffffffffu, s.y, o)));
                }
                for (int c = lane; c < cols; c += 32) {
                    const long long i = r * cols + c;
                    dx[i] = kv_backward(y[i], dy[i], s);
                    scale[i] = fabs((double)dy[i]) + kv_weight(y[i]) * s.y;
                }
            }
            """;

    private static Compilation compile(String reference) {
        return Nvrtc.load(Optional.empty()).compile("backward.cu", "#include \"kevo.h\"\n" + reference + WALK,
                Prelude.headers(), "sm_90");
    }

    @Test
    void eachBackwardReferenceCompilesAndServesTheWalk() {
        for (Operator op : List.of(Operators.SOFTMAX_BACKWARD, Operators.LOG_SOFTMAX_BACKWARD)) {
            assertTrue(compile(op.referenceSource()).definesKernel("bw_reference"), op.id());
        }
    }

    @Test
    void aReferenceWithoutItsExpectedOutputDoesNotCompile() {
        String source = Operators.SOFTMAX_BACKWARD.referenceSource();
        String without = source.replaceAll("(?m)^.*kv_backward\\(double y, double dy, double2 dot\\) \\{.*$", "");
        assertTrue(without.length() < source.length(), "the definition was taken out");
        assertThrows(CompileException.class, () -> compile(without));
    }

    static List<Precision> dtypes() {
        return Precision.SUPPORTED;
    }

    /**
     * A gradient's build of kevo's kernels (TrustedKernels.source: the constants, harness.cu, the forward's score and
     * reference, what y is, then the backward's reference and harness_backward.cu) compiles in every dtype and defines
     * every kernel the evaluator looks up by name, the backward's (BackwardKernels) beside the forward's
     * (TrustedKernels), so that a kernel renamed on one side does not wait for a GPU to be found missing.
     */
    @Exhaustive
    @ParameterizedTest
    @MethodSource("dtypes")
    void theBackwardHarnessCompilesInEveryDtype(Precision dtype) throws IOException {
        for (Operator op : List.of(Operators.SOFTMAX_BACKWARD, Operators.LOG_SOFTMAX_BACKWARD)) {
            harnessCompiles(op, dtype);
        }
    }

    /**
     * Each operator once, one in float32 and one in a 16-bit type with a float32 dx (each compile of the
     * harness takes NVRTC seconds on two cores); CI's second pass compiles both in every dtype.
     */
    @Test
    @Exhaustive
    void theBackwardHarnessCompilesForEachOperator() throws IOException {
        harnessCompiles(Operators.SOFTMAX_BACKWARD, Precision.FP32);
        harnessCompiles(Operators.LOG_SOFTMAX_BACKWARD, Precision.BF16_FP32);
    }

    /** The kernels a class of kevo's evaluator looks up by name ({@code module.kernel("...")}). */
    static List<String> lookedUp(String javaFile) throws IOException {
        return Pattern.compile("module\\.kernel\\(\"(\\w+)\"\\)")
                .matcher(Files.readString(TestFiles.root().resolve("src/main/java/dev/kevo/eval/" + javaFile)))
                .results().map(m -> m.group(1)).toList();
    }

    private static void harnessCompiles(Operator op, Precision dtype) throws IOException {
        Compilation c = Nvrtc.load(Optional.empty()).compile(TrustedKernels.SOURCE_NAME,
                TrustedKernels.source(new Task(op, dtype)), Prelude.headers(), "sm_90");
        List<String> backward = lookedUp("BackwardKernels.java");
        assertTrue(backward.containsAll(List.of("kevo_generate_backward", "kevo_prepare_backward",
                "kevo_perturb_backward", "kevo_dot_chunks", "kevo_dot_merge", "kevo_compare_backward")),
                backward::toString);
        for (String kernel : java.util.stream.Stream.concat(backward.stream(), lookedUp("TrustedKernels.java").stream())
                .toList()) {
            assertTrue(c.definesKernel(kernel), op.id() + " " + dtype.id() + ": " + kernel);
        }
        assertFalse(c.definesKernel("kv_perturb_dy"), "a __device__ function is not a kernel");
    }
}
