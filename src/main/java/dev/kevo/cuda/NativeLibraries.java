package dev.kevo.cuda;

import dev.kevo.KevoException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** What kevo's java.lang.foreign bindings (NVRTC, cuDNN) share: where to look for a library, and calling into it. */
final class NativeLibraries {
    private NativeLibraries() {
    }

    /**
     * Where to look, in order: {@code LD_LIBRARY_PATH}'s folders, then each {@code homeVars} variable's folder with
     * each of {@code homeSubdirs}, then {@code fixed}; and in each folder every soname (newest first), each soname
     * also bare for the system's own search path.
     */
    static List<String> candidates(Map<String, String> env, List<String> homeVars, List<String> homeSubdirs,
                                   List<String> fixed, List<String> sonames) {
        List<String> dirs = new ArrayList<>();
        Optional.ofNullable(env.get("LD_LIBRARY_PATH")).ifPresent(p -> {
            for (String dir : p.split(":")) {
                if (!dir.isBlank()) {
                    dirs.add(dir);
                }
            }
        });
        for (String var : homeVars) {
            Optional.ofNullable(env.get(var)).filter(v -> !v.isBlank())
                    .ifPresent(home -> homeSubdirs.forEach(sub -> dirs.add(home + "/" + sub)));
        }
        dirs.addAll(fixed);
        Set<String> all = new LinkedHashSet<>();
        for (String soname : sonames) {
            for (String dir : dirs) {
                all.add(Path.of(dir, soname).toString());
            }
            all.add(soname);
        }
        return List.copyOf(all);
    }

    /** A downcall to {@code symbol}; a library without it is an environment error that {@code library} names. */
    static MethodHandle downcall(Linker linker, SymbolLookup lib, String symbol, FunctionDescriptor descriptor,
                                 String library, String hint) {
        MemorySegment address = lib.find(symbol).orElseThrow(() ->
                KevoException.environment(library + ": no symbol " + symbol + hint));
        return linker.downcallHandle(address, descriptor);
    }

    /** What a failed MethodHandle.invoke threw, as an unchecked exception (errors rethrown as they are). */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
