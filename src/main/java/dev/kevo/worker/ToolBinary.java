package dev.kevo.worker;

import dev.kevo.KevoException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Where a CUDA toolkit tool kevo runs workers under (compute-sanitizer, Nsight Compute's ncu) is found, and what
 * version it says it is: one rule for every such tool, so that each is found the same way.
 *
 * @param name the binary's file name ({@code compute-sanitizer}, {@code ncu})
 * @param variable the environment variable that names the binary
 * @param hint how to get one, for every message that says none was found
 */
record ToolBinary(String name, String variable, String hint) {
    /**
     * The binary named by {@link #variable} (one that is not there is an input error, never a fall-back to another),
     * else the first on the PATH, under {@code $CUDA_HOME} or {@code $CUDA_PATH}, or among {@code fallbacks} (where
     * the CUDA toolkit's default folder would be).
     *
     * @throws KevoException an environment error naming where kevo looked when there is none
     */
    Path locate(Map<String, String> env, List<Path> fallbacks) {
        String named = env.get(variable);
        if (named != null && !named.isBlank()) {
            Path path = Path.of(named);
            if (!Files.isRegularFile(path) || !Files.isExecutable(path)) {
                throw KevoException.input(variable + " " + named + ": no such executable");
            }
            return path;
        }
        List<Path> looked = candidates(env, fallbacks);
        return looked.stream().filter(p -> Files.isRegularFile(p) && Files.isExecutable(p)).findFirst()
                .orElseThrow(() -> KevoException.environment("no " + name + " found (" + hint + "); looked in "
                        + String.join(", ", looked.stream().map(Path::toString).toList())));
    }

    /** The binary {@link #locate} would use, or empty where there is none. */
    Optional<Path> find(Map<String, String> env, List<Path> fallbacks) {
        try {
            return Optional.of(locate(env, fallbacks));
        } catch (KevoException e) {
            return Optional.empty();
        }
    }

    /** Where kevo looks when none is named, in order. */
    private List<Path> candidates(Map<String, String> env, List<Path> fallbacks) {
        List<Path> out = new ArrayList<>();
        String path = env.get("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                if (!dir.isBlank()) {
                    out.add(Path.of(dir, name));
                }
            }
        }
        for (String home : List.of("CUDA_HOME", "CUDA_PATH")) {
            Optional.ofNullable(env.get(home)).filter(h -> !h.isBlank())
                    .ifPresent(h -> out.add(Path.of(h, "bin", name)));
        }
        out.addAll(fallbacks);
        return out.stream().distinct().toList();
    }

    /** What {@code executable --version} says, its last non-blank line, with the path; or the path alone. */
    static String version(Path executable) {
        try {
            Process p = new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return new String(out, StandardCharsets.UTF_8).lines().map(String::strip).filter(l -> !l.isEmpty())
                    .reduce((a, b) -> b).map(l -> l + " (" + executable + ")").orElse(executable.toString());
        } catch (IOException e) {
            return executable.toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return executable.toString();
        }
    }
}
