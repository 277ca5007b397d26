package dev.kevo.eval;

import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.task.InputCase;
import dev.kevo.task.Shape;
import dev.kevo.task.Tolerance;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/** kevo's own kernels (trusted.cu): input generation, the float64 reference, comparison and guard checks. */
final class TrustedKernels implements AutoCloseable {
    static final String SOURCE_NAME = "trusted.cu";
    private static final int THREADS = 256;

    private final Gpu gpu;
    private final Module module;
    private final Kernel generate;
    private final Kernel reference;
    private final Kernel compare;
    private final Kernel guardCheck;
    private final int sms;

    TrustedKernels(Gpu gpu, Nvrtc nvrtc) {
        this.gpu = gpu;
        Compilation compiled = nvrtc.compile(SOURCE_NAME, source(), Prelude.headers(), gpu.info().arch());
        this.module = gpu.load(compiled);
        this.generate = module.kernel("kevo_generate");
        this.reference = module.kernel("kevo_reference");
        this.compare = module.kernel("kevo_compare");
        this.guardCheck = module.kernel("kevo_guard_check");
        this.sms = gpu.info().sms();
    }

    static String source() {
        return Prelude.resource(TrustedKernels.class, SOURCE_NAME);
    }

    void generate(CUdeviceptr x, Shape shape, long seed, InputCase inputCase) {
        gpu.launch(generate, elementGrid(shape.elements()), THREADS, 0, x, shape.rows(), shape.cols(), seed,
                inputCase.ordinal());
    }

    /** Row statistics of the generated input, recomputed from the generator, never read from x. */
    void reference(CUdeviceptr stats, Shape shape, long seed, InputCase inputCase) {
        gpu.launch(reference, Math.min(shape.rows(), sms * 16), THREADS, 0, stats, shape.rows(), shape.cols(), seed,
                inputCase.ordinal());
    }

    CheckCounts compare(CUdeviceptr y, CUdeviceptr x, CUdeviceptr stats, CUdeviceptr result, Shape shape, long seed,
                        InputCase inputCase, Tolerance tolerance) {
        gpu.fill(result, 0, CheckCounts.BYTES / 4);
        gpu.fill(result.withByteOffset(4 * 8), -1, 2);  // first_bad starts at ~0
        gpu.launch(compare, elementGrid(shape.elements()), THREADS, 0, y, x, stats, shape.rows(), shape.cols(),
                seed, inputCase.ordinal(), tolerance.absolute(), tolerance.relative(), result);
        long[] words = new long[CheckCounts.BYTES / 8];
        gpu.download(result, Pointer.to(words), CheckCounts.BYTES);
        return CheckCounts.fromWords(words);
    }

    /** Adds to {@code counter} the words of a guard zone that lost their pattern. */
    void guardCheck(CUdeviceptr guard, long words, int pattern, CUdeviceptr counter) {
        gpu.launch(guardCheck, elementGrid(words), THREADS, 0, guard, words, pattern, counter);
    }

    private int elementGrid(long elements) {
        return (int) Math.max(1, Math.min((elements + THREADS - 1) / THREADS, (long) sms * 32));
    }

    @Override
    public void close() {
        module.close();
    }
}
