package dev.kevo.eval;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.NeedsNvrtc;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileException;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The backward operators' GPU reference (row_dot.cu and each operator's own file) compiles behind kevo.h and defines
 * what the harness's walk over y and dy will call: the dot product's start, fold and merge, and the expected dx. Until
 * the harness walks two row inputs, a stand-in walk here (a warp a row, the chunks merged by shuffles, as
 * kevo_reference_chunks folds a row) uses every function, so a reference that leaves one out fails to compile here.
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
}
