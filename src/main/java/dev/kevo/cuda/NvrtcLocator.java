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
 * Finds an NVRTC library. JCuda's own NVRTC binding is tied to libnvrtc.so.12's versioned symbols and does
 * not load on CUDA 13 hosts, so kevo binds NVRTC itself and looks in the places CUDA installs put it.
 */
public final class NvrtcLocator {

    /** How to get an NVRTC kevo finds, for every message that says none was found. */
    public static final String INSTALL_HINT = "install CUDA's NVRTC, Debian's libnvrtc11.2, or set KEVO_NVRTC";

    static final List<String> SONAMES = List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2");

    private final Map<String, String> env;

    public NvrtcLocator(Map<String, String> env) {
        this.env = env;
    }

    /** A library that loaded, and what it is called. */
    public record Found(SymbolLookup lookup, String location) {
    }

    /**
     * Loads the library the user named (the configured path, else $KEVO_NVRTC), or, when none is named, the first
     * soname that opens in the usual CUDA directories, then through the system's library path. A named library
     * that does not load is an input error: falling back would judge kernels with a compiler the user did not ask
     * for.
     */
    public Found load(Optional<Path> configured, Arena arena) {
        Optional<Named> named = named(configured);
        if (named.isPresent()) {
            String library = named.get().library();
            Path path = Path.of(library);
            if (!Files.exists(path)) {
                throw KevoException.input(named.get().source() + " " + library + ": no such file");
            }
            return open(library, arena).map(lookup -> new Found(lookup, library)).orElseThrow(() ->
                    KevoException.input(named.get().source() + " " + library + ": not a loadable library"));
        }
        List<String> tried = candidates();
        for (String candidate : tried) {
            Optional<SymbolLookup> lookup = open(candidate, arena);
            if (lookup.isPresent()) {
                return new Found(lookup.get(), candidate);
            }
        }
        throw KevoException.environment("no NVRTC library found (" + INSTALL_HINT + "); looked for: "
                + String.join(", ", tried));
    }

    /**
     * The library {@link #load} would open, without keeping it loaded: the one named (loadable or not; loading
     * says what is wrong with it), else the first found. Empty when none is named and none is found.
     */
    public Optional<String> locate(Optional<Path> configured) {
        Optional<Named> named = named(configured);
        if (named.isPresent()) {
            return Optional.of(named.get().library());
        }
        try (Arena arena = Arena.ofConfined()) {
            return candidates().stream().filter(candidate -> open(candidate, arena).isPresent()).findFirst();
        }
    }

    /** A library the user chose, and where the choice came from, for the error that names it. */
    record Named(String library, String source) {
    }

    /** The configured path, else $KEVO_NVRTC when set; blank values name nothing. */
    Optional<Named> named(Optional<Path> configured) {
        return configured.map(p -> new Named(p.toString(), "--nvrtc"))
                .or(() -> Optional.ofNullable(env.get("KEVO_NVRTC")).filter(s -> !s.isBlank())
                        .map(s -> new Named(s, "KEVO_NVRTC")));
    }

    /** Where kevo looks when no library is named: each soname in the usual directories, then by soname. */
    List<String> candidates() {
        return NativeLibraries.candidates(env, List.of("CUDA_HOME", "CUDA_PATH"),
                List.of("lib64", "targets/x86_64-linux/lib"),
                List.of("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"), SONAMES);
    }

    private static Optional<SymbolLookup> open(String candidate, Arena arena) {
        try {
            if (candidate.contains("/")) {
                Path path = Path.of(candidate);
                return Files.exists(path) ? Optional.of(SymbolLookup.libraryLookup(path, arena)) : Optional.empty();
            }
            return Optional.of(SymbolLookup.libraryLookup(candidate, arena));
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return Optional.empty();
        }
    }
}
