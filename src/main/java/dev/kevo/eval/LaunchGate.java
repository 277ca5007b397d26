package dev.kevo.eval;

import dev.kevo.cuda.Gpu;

/**
 * Holds the stream until the host has queued a piece of work whole, then releases it, so that events around the work
 * bracket the GPU's time alone and not the host's gaps between its calls. One pinned word serves the evaluator's life:
 * each hold queues the gate kernel with the next ticket, and the kernel waits until the word reaches its ticket, so
 * opening needs no reset and opens every earlier hold too. A host that does not open within a second is waited for
 * no longer (the gate kernel's own limit).
 */
final class LaunchGate implements AutoCloseable {
    private final Gpu gpu;
    private final TrustedKernels trusted;
    private final Gpu.HostFlag flag;
    private int ticket;

    LaunchGate(Gpu gpu, TrustedKernels trusted) {
        this.gpu = gpu;
        this.trusted = trusted;
        this.flag = gpu.hostFlag();
        flag.set(ticket);
    }

    /** Queues a gate: work queued after it waits until {@link #open()}. */
    void hold() {
        trusted.gate(flag.pointer(), ++ticket);
    }

    /** Releases every gate queued so far. */
    void open() {
        flag.set(ticket);
    }

    /** Opens, and frees the word once no gate kernel can still be reading it. */
    @Override
    public void close() {
        open();
        try {
            gpu.synchronize();
        } finally {
            flag.close();  // a context that failed to synchronize runs no gate kernel any more
        }
    }
}
