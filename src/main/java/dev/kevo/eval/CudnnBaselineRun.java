package dev.kevo.eval;

import dev.kevo.cuda.Cudnn;
import dev.kevo.data.InputCase;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Task;
import java.util.ArrayList;
import java.util.List;

/**
 * cuDNN's softmax as the baseline: a descriptor per shape, prepared once, and its error on every shape and
 * input case measured once at start against kevo's float64 reference. The vendor is never rejected; an
 * unsupported shape or a failed call is an environment error (exit 3) naming the library and cuDNN's status.
 */
final class CudnnBaselineRun implements BaselineRun {
    private final Cudnn.Softmax softmax;
    private final Task task;
    private final List<Shape> shapes;
    private final List<Integer> prepared = new ArrayList<>();
    private final List<Double> errors = new ArrayList<>();

    /** @param task whose input and output tensors the library reads and writes */
    CudnnBaselineRun(Cudnn.Softmax softmax, Task task, List<Shape> shapes) {
        this.softmax = softmax;
        this.task = task;
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
        softmax.run(prepared.get(shape), buffers.pointer(task.op().input().name()),
                buffers.pointer(task.op().output().name()),
                shapes.get(shape).toString());
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
