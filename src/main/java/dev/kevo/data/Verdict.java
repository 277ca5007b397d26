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
    NONDETERMINISTIC("nondeterministic"),
    /**
     * compute-sanitizer's memcheck or initcheck found an access outside the kernel's buffers (a read past x included,
     * which no output shows) or a read of global memory nothing wrote ({@code kevo eval --sanitize}).
     */
    MEMORY_ERROR("memory-error"),
    /**
     * compute-sanitizer's racecheck found shared-memory accesses no barrier orders, or synccheck a barrier used
     * wrongly (threads of a block or warp diverging at it): results that depend on timing, which a GPU may rarely
     * show.
     */
    DATA_RACE("data-race"),
    /**
     * Passed every check, and was timed on the campaign's cascade shapes only: its memory floor there fell short of
     * the bar its island's best set ({@link Screen}), so the rest of the suite was not timed. Not a rejection: it has
     * no score, so it neither survives nor is repaired.
     */
    SCREENED("screened");

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

    /** Whether the kernel failed something (a check, the compiler, the agent), as a screened one did not. */
    public boolean rejected() {
        return this != PASS && this != SCREENED;
    }

    /**
     * Whether the kernel's launches all ran and returned, so that what it gets is about its outputs (or it passed):
     * a kernel compute-sanitizer can run too, and whose sanitizer findings say more than this verdict.
     */
    public boolean launchesReturned() {
        return switch (this) {
            case PASS, SCREENED, UNWRITTEN_OUTPUT, NAN_OUTPUT, WRONG_RESULT, OUT_OF_BOUNDS_WRITE, INPUT_MODIFIED,
                 STALE_RESULT, TIMED_OUTPUT_WRONG, FASTER_THAN_MEMORY, SLOW_WHEN_CHECKED, NONDETERMINISTIC -> true;
            default -> false;
        };
    }
}
