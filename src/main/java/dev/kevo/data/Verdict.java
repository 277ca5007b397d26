package dev.kevo.data;

import com.fasterxml.jackson.annotation.JsonValue;

/** What the evaluator concluded about a candidate, or about one of its shapes. */
public enum Verdict {
    PASS("pass"),
    AGENT_FAILURE("agent-failure"),
    CONTRACT_ERROR("contract-error"),
    SOURCE_REJECTED("source-rejected"),
    COMPILE_TIMEOUT("compile-timeout"),
    COMPILE_ERROR("compile-error"),
    MISSING_KERNEL("missing-kernel"),
    PLAN_ERROR("plan-error"),
    RESOURCES_EXCEEDED("resources-exceeded"),
    LAUNCH_FAILED("launch-failed"),
    ILLEGAL_ADDRESS("illegal-address"),
    KERNEL_FAULT("kernel-fault"),
    KERNEL_TIMEOUT("kernel-timeout"),
    WORKER_CRASHED("worker-crashed"),
    UNWRITTEN_OUTPUT("unwritten-output"),
    NAN_OUTPUT("nan-output"),
    WRONG_RESULT("wrong-result"),
    OUT_OF_BOUNDS_WRITE("out-of-bounds-write"),
    INPUT_MODIFIED("input-modified"),
    STALE_RESULT("stale-result"),
    /**
     * Work skipped once the checks were over: a timed launch, one of those checked at random, left y unwritten
     * or wrong, or the launch after timing left it unwritten.
     */
    TIMED_OUTPUT_WRONG("timed-output-wrong"),
    /** Faster than reading the input from memory can be, beyond the measured noise: no correct softmax is. */
    FASTER_THAN_MEMORY("faster-than-memory"),
    /**
     * A checked launch took far longer than the same kernel's timed launches of that shape: time spent only when
     * checked, as a kernel would that searched its inputs for what the timed launches will hold.
     */
    SLOW_WHEN_CHECKED("slow-when-checked"),
    /** Two launches on one input wrote different bits, where the settings require the same ({@code require_deterministic}). */
    NONDETERMINISTIC("nondeterministic");

    private final String id;

    Verdict(String id) {
        this.id = id;
    }

    @JsonValue
    public String id() {
        return id;
    }

    public boolean passed() {
        return this == PASS;
    }
}
