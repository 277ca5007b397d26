package dev.kevo.eval;

import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.cuda.Kernel;
import dev.kevo.cuda.Module;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.InputCase;
import dev.kevo.data.Shape;
import dev.kevo.data.Tolerance;
import dev.kevo.task.op.Task;

/**
 * kevo's own kernels for a loss (harness_cross_entropy.cu), which {@link TrustedKernels} launches beside the forward's
 * generation of x and its row statistics when its task's operator has an output of one element
 * ({@link dev.kevo.task.op.Operator#reducedOutput}): the labels, one a row; the loss's float64 totals after the
 * statistics; and the comparison of dx and of the loss (kevo_prepare poisons the loss before a timed launch). What the
 * protocol of each kernel is, and why, is in harness_cross_entropy.cu.
 */
final class CrossEntropyKernels {
    static final String SOURCE_NAME = "harness_cross_entropy.cu";
    private static final int THREADS = 256;

    private final Gpu gpu;
    private final int sms;
    private final Kernel labels;
    private final Kernel totals;
    private final Kernel compare;

    CrossEntropyKernels(Gpu gpu, Module module) {
        this.gpu = gpu;
        this.sms = gpu.info().sms();
        this.labels = module.kernel("kevo_generate_labels");
        this.totals = module.kernel("kevo_cross_entropy_totals");
        this.compare = module.kernel("kevo_compare_cross_entropy");
    }

    /** What a loss's build of kevo's kernels adds after its reference: this harness, under its own name. */
    static String source() {
        return "\n#line 1 \"" + SOURCE_NAME + "\"\n" + Prelude.resource(CrossEntropyKernels.class, SOURCE_NAME);
    }

    /** The labels of {@code inputs} for {@code inputCase} under {@code caseSeed}, one a row. */
    void generateLabels(Inputs inputs, Shape shape, long caseSeed, InputCase inputCase) {
        gpu.launch(labels, TrustedKernels.rowGrid(shape, sms), THREADS, 0, inputs.labels(), shape.rows(), shape.cols(),
                caseSeed, inputCase.ordinal());
    }

    /** The loss's totals into {@code stats} past its rows' statistics, which must already be there. */
    void totals(DevicePointer stats, Inputs inputs, Shape shape, long caseSeed, InputCase inputCase) {
        gpu.launch(totals, 1, THREADS, 0, stats.withByteOffset((long) shape.rows() * 16), stats, inputs.x(),
                shape.rows(), shape.cols(), caseSeed, inputCase.ordinal());
    }

    /**
     * Queues the comparison of dx and the loss with the reference in {@code stats}, and of x and the labels with the
     * generator under {@code salt}; the case's scalar {@code g} is the incoming gradient.
     */
    void compareQueued(Outputs out, Inputs inputs, DevicePointer stats, DevicePointer result, Shape shape,
                       long caseSeed, InputCase inputCase, long salt, Tolerance tolerance) {
        gpu.launch(compare, TrustedKernels.itemGrid(shape, sms), THREADS, 0, out.y(), out.reduced(), inputs.x(),
                inputs.labels(), stats, shape.rows(), shape.cols(), TrustedKernels.REFERENCE_CHUNK,
                TrustedKernels.chunks(shape), caseSeed, inputCase.ordinal(), salt, inputs.scalars().get(Task.GRADIENT),
                tolerance.absolute(), tolerance.relative(), tolerance.relativeL2(), result);
    }
}
