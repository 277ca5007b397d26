package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.InputCase;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import dev.kevo.task.op.Operator;

/**
 * kevo's own kernels for a gradient operator (harness_backward.cu), which {@link TrustedKernels} launches in place of
 * the forward's generation, reference, comparison and salting when its task's operator is a gradient
 * ({@link Operator#gradientOf}): y and dy derived from the forward's statistics of an x in kevo's scratch, the float64
 * dot product of each row, dx against the bound scaled by dy, and dy salted for timed launches. The row inputs are
 * the operator's in its order (y, then dy: {@link Inputs#rowInputs}); what the protocol of each kernel is, and why,
 * is in harness_backward.cu.
 */
final class BackwardKernels {
    static final String SOURCE_NAME = "harness_backward.cu";
    private static final int THREADS = 256;

    private final Gpu gpu;
    private final int sms;
    private final Kernel generate;
    private final Kernel perturb;
    private final Kernel prepare;
    private final Kernel dotChunks;
    private final Kernel dotMerge;
    private final Kernel compare;

    BackwardKernels(Gpu gpu, Module module) {
        this.gpu = gpu;
        this.sms = gpu.info().sms();
        this.generate = module.kernel("kevo_generate_backward");
        this.perturb = module.kernel("kevo_perturb_backward");
        this.prepare = module.kernel("kevo_prepare_backward");
        this.dotChunks = module.kernel("kevo_dot_chunks");
        this.dotMerge = module.kernel("kevo_dot_merge");
        this.compare = module.kernel("kevo_compare_backward");
    }

    /**
     * What a gradient operator's build of kevo's kernels adds after the forward's score and reference: its own
     * reference (the dot product's fold, the weight and the expected dx), then this harness, each under its own name.
     */
    static String source(Operator op) {
        return "\n#line 1 \"" + op.id() + ".cu\"\n" + op.referenceSource()
                + "#line 1 \"" + SOURCE_NAME + "\"\n" + Prelude.resource(BackwardKernels.class, SOURCE_NAME);
    }

    private static DevicePointer y(Inputs inputs) {
        return inputs.rowInputs().get(0);
    }

    private static DevicePointer dy(Inputs inputs) {
        return inputs.rowInputs().get(1);
    }

    /**
     * y and dy of {@code inputs} for {@code inputCase} under {@code caseSeed}, from the forward's row statistics already
     * in {@code inputs.source()} (of x generated with the same seed and case).
     */
    void generate(Inputs inputs, Shape shape, long caseSeed, InputCase inputCase) {
        gpu.launch(generate, TrustedKernels.itemGrid(shape, sms), THREADS, 0, y(inputs), dy(inputs),
                inputs.source().stats(), shape.rows(), shape.cols(), TrustedKernels.REFERENCE_CHUNK,
                TrustedKernels.chunks(shape), caseSeed, inputCase.ordinal());
    }

    /**
     * Each row's dot product and the sum of its terms' magnitudes in float64 into {@code dots}, from y and dy as they
     * are now (the comparison holds both to the generator), {@code partial} left poisoned.
     */
    void reference(DevicePointer dots, DevicePointer partial, Inputs inputs, Shape shape) {
        int chunks = TrustedKernels.chunks(shape);
        gpu.launch(dotChunks, TrustedKernels.itemGrid(shape, sms), THREADS, 0, chunks == 1 ? dots : partial, y(inputs),
                dy(inputs), shape.rows(), shape.cols(), TrustedKernels.REFERENCE_CHUNK, chunks);
        if (chunks > 1) {
            gpu.launch(dotMerge, Math.min(shape.rows(), sms * 32), THREADS, 0, dots, partial, shape.rows(), chunks);
        }
    }

    /** Queues the comparison of dx with the reference in {@code dots}, and of y and dy with the generator under {@code salt}. */
    void compareQueued(DevicePointer dx, Inputs inputs, DevicePointer dots, DevicePointer result, Shape shape,
                       long caseSeed, InputCase inputCase, long salt, Tolerance tolerance) {
        gpu.launch(compare, TrustedKernels.itemGrid(shape, sms), THREADS, 0, dx, y(inputs), dy(inputs),
                inputs.source().stats(), dots, shape.rows(), shape.cols(), TrustedKernels.REFERENCE_CHUNK,
                TrustedKernels.chunks(shape), caseSeed, inputCase.ordinal(), salt, tolerance.absolute(),
                tolerance.relative(), result);
    }

    /** Moves dy from salt {@code oldSalt} to {@code newSalt} (harness_backward.cu, kv_dy_salted); 0 is as generated. */
    void perturb(Inputs inputs, Shape shape, long caseSeed, InputCase inputCase, long oldSalt, long newSalt) {
        gpu.launch(perturb, TrustedKernels.rowGrid(shape, sms), THREADS, 0, dy(inputs), y(inputs), shape.rows(),
                shape.cols(), caseSeed, inputCase.ordinal(), oldSalt, newSalt);
    }

    /** {@link #perturb} of dy, {@code dxWords} of dx and {@code wsWords} of the workspace poisoned, in one launch. */
    void prepare(Inputs inputs, Shape shape, long caseSeed, InputCase inputCase, long oldSalt, long newSalt,
                 DevicePointer dx, long dxWords, DevicePointer ws, long wsWords) {
        gpu.launch(prepare, TrustedKernels.prepareGrid(shape, Math.max(dxWords, wsWords), sms), THREADS, 0, dy(inputs),
                y(inputs), shape.rows(), shape.cols(), caseSeed, inputCase.ordinal(), oldSalt, newSalt, dx, dxWords, ws,
                wsWords);
    }
}
