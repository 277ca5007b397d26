package dev.kevo.cuda;

import dev.kevo.KevoException;
import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds a cuDNN library, as {@link NvrtcLocator} finds NVRTC: {@code $KEVO_CUDNN} when set, else cuDNN 9, then 8,
 * in the usual directories and through the system's library path. JCudnn's Java API stops at older cuDNN
 * releases, so kevo binds the few functions it calls itself.
 */
public final class CudnnLocator {

    static final List<String> SONAMES = List.of("libcudnn.so.9", "libcudnn.so.8");
    public static final String ENV = "KEVO_CUDNN";

    /**
     * cuDNN 9's libcudnn.so.9 is a dispatcher that dlopens its sub-libraries by bare soname when first used. A
     * library opened by path outside the loader's search path would then fail at the first softmax, so the
     * sub-libraries the legacy softmax needs are opened first from the same folder: the loader matches a bare
     * soname against libraries already open.
     */
    static final Map<String, List<String>> SUBLIBRARIES = Map.of(
            "9", List.of("libcudnn_graph.so.9", "libcudnn_ops.so.9"),
            "8", List.of("libcudnn_ops_infer.so.8"));

    private final Map<String, String> env;
    private final Opener opener;

    /** How a candidate is opened; tests replace it to see the order without a cuDNN on the host. */
    interface Opener {
        Optional<SymbolLookup> open(String candidate, Arena arena);
    }

    public CudnnLocator(Map<String, String> env) {
        this(env, CudnnLocator::open);
    }

    CudnnLocator(Map<String, String> env, Opener opener) {
        this.env = env;
        this.opener = opener;
    }

    /** A library that loaded, and what it is called. */
    public record Found(SymbolLookup lookup, String location) {
    }

    /** As {@link #load(Optional, Arena)} with no library chosen beforehand. */
    public Found load(Arena arena) {
        return load(Optional.empty(), arena);
    }

    /**
     * Loads {@code $KEVO_CUDNN}, or {@code path} when given (a campaign's recorded library, or the one a
     * supervisor resolved for its workers), else the first candidate that opens. A named library that does not
     * load is an error, never a fall-back to another: a speedup over a cuDNN the user did not ask for would be
     * passed off as one over the one they did. No cuDNN at all is an environment failure (exit 3) that lists the
     * places tried, which {@code baseline: auto} turns into its fall-back.
     */
    public Found load(Optional<String> path, Arena arena) {
        Optional<Named> named = named(path);
        if (named.isPresent()) {
            String library = named.get().library();
            if (library.contains("/") && !Files.exists(Path.of(library))) {
                throw KevoException.environment("cuDNN " + library + " (" + named.get().source() + "): no such file");
            }
            return opener.open(library, arena).map(lookup -> new Found(lookup, library)).orElseThrow(() ->
                    KevoException.environment("cuDNN " + library + " (" + named.get().source()
                            + "): not a loadable library"));
        }
        List<String> tried = candidates();
        for (String candidate : tried) {
            Optional<SymbolLookup> lookup = opener.open(candidate, arena);
            if (lookup.isPresent()) {
                return new Found(lookup.get(), candidate.contains("/") ? candidate
                        : loadedFrom(candidate).orElse(candidate));
            }
        }
        throw KevoException.environment(NOT_FOUND + " (install cuDNN 9 or 8, or set " + ENV + "); looked for: "
                + String.join(", ", tried));
    }

    /** How the error for a host without cuDNN starts, which {@code baseline: auto} turns into its fall-back. */
    public static final String NOT_FOUND = "no cuDNN library found";

    /**
     * Where the loader found a library opened by soname: its folder and the soname, read from this process's
     * mappings (Linux), so messages and records name a path. Empty when it cannot be told.
     */
    static Optional<String> loadedFrom(String soname) {
        try {
            return mappedFolder(Files.readAllLines(Path.of("/proc/self/maps")), soname).map(dir -> dir + "/" + soname);
        } catch (java.io.IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The folder of the first mapped file whose name starts with {@code soname} (e.g. libcudnn.so.9.14.0). */
    static Optional<String> mappedFolder(List<String> maps, String soname) {
        for (String line : maps) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            Path file = Path.of(line.substring(slash).trim());
            if (file.getFileName() != null && file.getFileName().toString().startsWith(soname)
                    && file.getParent() != null) {
                return Optional.of(file.getParent().toString());
            }
        }
        return Optional.empty();
    }

    /** A library chosen for kevo, and by whom, for the error that names it. */
    record Named(String library, String source) {
    }

    /** $KEVO_CUDNN when set (it overrides everything, as $KEVO_NVRTC does), else {@code path}; blanks name nothing. */
    Optional<Named> named(Optional<String> path) {
        return Optional.ofNullable(env.get(ENV)).filter(s -> !s.isBlank()).map(s -> new Named(s, ENV))
                .or(() -> path.filter(s -> !s.isBlank()).map(s -> new Named(s, "recorded")));
    }

    /** Where kevo looks when no library is named: cuDNN 9 in every directory, then cuDNN 8, each also by soname. */
    List<String> candidates() {
        return NativeLibraries.candidates(env, List.of("CUDNN_HOME", "CUDA_HOME", "CUDA_PATH"), List.of("lib64", "lib"),
                List.of("/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64", "/usr/lib64"), SONAMES);
    }

    private static Optional<SymbolLookup> open(String candidate, Arena arena) {
        try {
            if (candidate.contains("/")) {
                Path path = Path.of(candidate);
                if (!Files.exists(path)) {
                    return Optional.empty();
                }
                preloadSublibraries(path, arena);
                return Optional.of(SymbolLookup.libraryLookup(path, arena));
            }
            return Optional.of(SymbolLookup.libraryLookup(candidate, arena));
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return Optional.empty();
        }
    }

    /** Opens the dispatcher's sub-libraries beside {@code library}, where they exist; see {@link #SUBLIBRARIES}. */
    private static void preloadSublibraries(Path library, Arena arena) {
        Path dir = library.toAbsolutePath().getParent();
        for (String sub : SUBLIBRARIES.getOrDefault(majorOf(library.getFileName().toString()), List.of())) {
            Path sibling = dir.resolve(sub);
            if (Files.exists(sibling)) {
                try {
                    SymbolLookup.libraryLookup(sibling, arena);
                } catch (IllegalArgumentException e) {
                    // cuDNN names the sub-library it could not load at the first call that needs it.
                }
            }
        }
    }

    /** The major version in a file name such as {@code libcudnn.so.9} or {@code libcudnn.so.9.14.0}; "" if none. */
    static String majorOf(String fileName) {
        int so = fileName.indexOf(".so.");
        if (so < 0) {
            return "";
        }
        String rest = fileName.substring(so + 4);
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }
}
