package dev.kevo.agent.llm;

import dev.kevo.cuda.Prelude;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Small kernel files that kevo's GPU tests compile with NVRTC and run (KnownToWorkGpuTest), shown to the model as
 * they are through {@code {{known_to_work}}}: what the prompt promises works cannot drift from what was run. A
 * model that was not shown a feature working avoids it, however fast it might be.
 */
final class KnownToWork {

    /** Resource names next to this class, in the order the prompt shows them. */
    static final List<String> FILES = List.of("known-grid-barrier.cu", "known-cluster.cu", "known-row-copy.cu");

    /** Each file's text as the prompt carries it, by file name. */
    static final Map<String, String> SOURCES = FILES.stream().collect(Collectors.toMap(f -> f,
            f -> Prelude.resource(KnownToWork.class, f).strip(), (a, b) -> a, LinkedHashMap::new));

    /** What {@code {{known_to_work}}} becomes: every file in a cuda block of its own. */
    static final String PROMPT = SOURCES.values().stream().map(s -> "```cuda\n" + s + "\n```")
            .collect(Collectors.joining("\n\n"));

    private KnownToWork() {
    }
}
