package dev.kevo.worker;

import dev.kevo.data.Verdict;
import java.util.List;

/**
 * The compute-sanitizer tools a sanitizer pass runs, in the order it runs them: memcheck first, since the others
 * assume memory accesses are sound (its manual says so), and a memory error is the finding that explains most.
 * compute-sanitizer runs one tool per process, so each gets a worker of its own.
 */
public enum SanitizerTool {
    MEMCHECK("memcheck", Verdict.MEMORY_ERROR, List.of(
            // Past x, y and the workspace there is memory nothing was allocated in: allocations are exact, and
            // this makes sure no neighbour's allocation starts right behind one.
            "--padding", Integer.toString(SanitizerTool.PADDING_BYTES))),
    RACECHECK("racecheck", Verdict.DATA_RACE, List.of("--racecheck-report", "analysis")),
    SYNCCHECK("synccheck", Verdict.DATA_RACE, List.of()),
    INITCHECK("initcheck", Verdict.MEMORY_ERROR, List.of());

    /** As far past a buffer as kevo's guard zones reach in an evaluation. */
    static final int PADDING_BYTES = 64 * 1024;

    private final String id;
    private final Verdict verdict;
    private final List<String> options;

    SanitizerTool(String id, Verdict verdict, List<String> options) {
        this.id = id;
        this.verdict = verdict;
        this.options = options;
    }

    public String id() {
        return id;
    }

    /** The verdict a finding of this tool gives. */
    public Verdict verdict() {
        return verdict;
    }

    /** Options of this tool beside the ones every run gets. */
    List<String> options() {
        return options;
    }
}
