package dev.kevo.cuda;

import jcuda.driver.CUevent;

/** A CUDA event, recorded on kevo's stream by {@link Gpu#record(Event)} to time what was queued between two. */
public final class Event {
    private final CUevent handle;

    Event(CUevent handle) {
        this.handle = handle;
    }

    CUevent handle() {
        return handle;
    }
}
