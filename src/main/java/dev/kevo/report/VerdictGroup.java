package dev.kevo.report;

import dev.kevo.data.Verdict;

/**
 * The report's coarse view of verdicts, in the terms a reader asks about: did it compile, was it right, did it
 * hang, did it crash, did it try to cheat. The switch has no default so that a new verdict fails to compile
 * here until someone decides where it belongs.
 */
public enum VerdictGroup {
    PASS("pass"),
    SCREENED("screened by the cascade"),
    COMPILE("compile error"),
    WRONG("wrong result"),
    TIMEOUT("timeout"),
    CRASH("crash"),
    CHEAT("cheat caught"),
    AGENT("agent failure");

    private final String label;

    VerdictGroup(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public static VerdictGroup of(Verdict verdict) {
        return switch (verdict) {
            case PASS -> PASS;
            case SCREENED -> SCREENED;
            // Rejected before a launch could run: the file, its plan or its resources do not work.
            case CONTRACT_ERROR, COMPILE_ERROR, MISSING_KERNEL, PLAN_ERROR, RESOURCES_EXCEEDED -> COMPILE;
            // A nondeterministic output is right each time, but not what the settings asked for; a memory error or a
            // race found by the sanitizer is a result that happened to come out right.
            case UNWRITTEN_OUTPUT, NAN_OUTPUT, WRONG_RESULT, NONDETERMINISTIC, MEMORY_ERROR, DATA_RACE -> WRONG;
            case COMPILE_TIMEOUT, KERNEL_TIMEOUT -> TIMEOUT;
            case LAUNCH_FAILED, ILLEGAL_ADDRESS, KERNEL_FAULT, WORKER_CRASHED -> CRASH;
            // What docs/reliability.md lists as cheats the checks catch: writing outside y, changing x, output that
            // goes stale after timing or is skipped in timed launches, times no memory could deliver, time spent only
            // when checked, and host code or other headers smuggled into the source.
            case OUT_OF_BOUNDS_WRITE, INPUT_MODIFIED, STALE_RESULT, TIMED_OUTPUT_WRONG, FASTER_THAN_MEMORY,
                 SLOW_WHEN_CHECKED, SOURCE_REJECTED -> CHEAT;
            case AGENT_FAILURE -> AGENT;
        };
    }
}
