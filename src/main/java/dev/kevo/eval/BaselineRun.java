package dev.kevo.eval;

/** A baseline ready to launch on every shape of the evaluator's suite (shapes by their index in it). */
interface BaselineRun extends AutoCloseable {

    long workspaceBytes(int shape);

    void run(int shape, Bindings buffers);

    /**
     * The worst relative L2 error the start-up check measured on a shape beyond what rounding to y's type allows (the
     * relative L2 itself in float32), where it is recorded; else null.
     */
    Double relativeL2(int shape);

    @Override
    void close();
}
