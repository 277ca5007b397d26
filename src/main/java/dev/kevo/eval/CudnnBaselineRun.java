package dev.kevo.eval;

import dev.kevo.cuda.Cudnn;
import dev.kevo.cuda.DevicePointer;
import dev.kevo.cuda.Gpu;
import dev.kevo.data.InputCase;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import dev.kevo.task.op.VendorBaseline;
import java.util.ArrayList;
import java.util.List;

/**
 * cuDNN's softmax as the baseline (its forward, or for a gradient operator its backward, with the operator's
 * algorithm): a descriptor per shape, prepared once, and its error on every shape and input case measured once at
 * start against kevo's float64 reference. The vendor is never rejected; an unsupported shape or a failed call is an
 * environment error (exit 3) naming the library and cuDNN's status.
 */
final class CudnnBaselineRun implements BaselineRun {
    private final Cudnn.Softmax softmax;
    private final Task task;
    private final List<Shape> shapes;
    private final List<Integer> prepared = new ArrayList<>();
    private final List<Double> errors = new ArrayList<>();
    /** cudnnSoftmaxBackward (dx from y and dy), not cudnnSoftmaxForward. */
    private final boolean backward;

    /**
     * cuDNN's implementation of {@code task}'s operator ({@link dev.kevo.task.op.Operator#vendor}), on the GPU's stream,
     * prepared for {@code shapes}; the caller made sure it has one ({@link Task#vendorCannotServe}).
     */
    static CudnnBaselineRun of(Cudnn cudnn, Gpu gpu, Task task, List<Shape> shapes) {
        VendorBaseline vendor = task.op().vendor().orElseThrow();
        return new CudnnBaselineRun(cudnn.softmax(gpu, task.dtype().x(), algorithm(vendor)), task, shapes,
                backward(vendor));
    }

    /** The function of each row cuDNN computes, or whose gradient it takes. */
    static Cudnn.Algorithm algorithm(VendorBaseline vendor) {
        return switch (vendor) {
            case CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_BACKWARD_ACCURATE -> Cudnn.Algorithm.ACCURATE;
            case CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_BACKWARD_LOG -> Cudnn.Algorithm.LOG;
        };
    }

    /** Whether cuDNN's backward is called (on the operator's two row inputs, y and dy), not its forward. */
    static boolean backward(VendorBaseline vendor) {
        return switch (vendor) {
            case CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_LOG -> false;
            case CUDNN_SOFTMAX_BACKWARD_ACCURATE, CUDNN_SOFTMAX_BACKWARD_LOG -> true;
        };
    }

    /** @param task whose row inputs and output tensors the library reads and writes */
    private CudnnBaselineRun(Cudnn.Softmax softmax, Task task, List<Shape> shapes, boolean backward) {
        this.softmax = softmax;
        this.task = task;
        this.backward = backward;
        this.shapes = List.copyOf(shapes);
        for (Shape shape : shapes) {
            prepared.add(softmax.prepare(shape.rows(), shape.cols()));
        }
    }

    /** Measures the worst relative L2 error per shape over {@code cases}; inputs derive from {@code inputSeed}. */
    void measureErrors(CorrectnessCheck correctness, List<InputCase> cases, long inputSeed) {
        errors.clear();
        for (int s = 0; s < shapes.size(); s++) {
            int shape = s;
            double worst = 0;
            for (InputCase inputCase : cases) {
                CorrectnessCheck.Measured m = correctness.measure(buffers -> run(shape, buffers), 0,
                        shapes.get(s), InputSalt.CHECK_CASE.derive(inputSeed, s, inputCase.ordinal()), inputCase);
                double e = m.counts().unwritten() > 0 || m.counts().nonFinite() > 0 ? Double.POSITIVE_INFINITY
                        : m.counts().relativeL2BeyondRounding();
                worst = Math.max(worst, e);
            }
            errors.add(worst);
        }
    }

    @Override
    public long workspaceBytes(int shape) {
        return 0;
    }

    @Override
    public void run(int shape, Bindings buffers) {
        List<Tensor> in = task.op().rowInputs();
        DevicePointer out = buffers.pointer(task.op().output().name());
        String where = shapes.get(shape).toString();
        if (backward) {
            softmax.runBackward(prepared.get(shape), buffers.pointer(in.get(0).name()), buffers.pointer(in.get(1).name()),
                    out, where);
        } else {
            softmax.run(prepared.get(shape), buffers.pointer(in.getFirst().name()), out, where);
        }
    }

    @Override
    public Double relativeL2(int shape) {
        return shape < errors.size() ? errors.get(shape) : null;
    }

    @Override
    public void close() {
        softmax.close();
    }
}
