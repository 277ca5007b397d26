package dev.kevo.eval;

/** A kernel file as the baseline: its start-up check rejects it when it is wrong, so no error is recorded. */
record FileBaselineRun(LoadedFile loaded) implements BaselineRun {
    @Override
    public long workspaceBytes(int shape) {
        return loaded.plans().get(shape).workspaceBytes();
    }

    @Override
    public void run(int shape, Bindings buffers) {
        loaded.runner().run(loaded.plans().get(shape), buffers);
    }

    @Override
    public Double relativeL2(int shape) {
        return null;
    }

    @Override
    public void close() {
        loaded.module().close();
    }
}
