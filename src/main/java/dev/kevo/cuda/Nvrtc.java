package dev.kevo.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.kevo.KevoException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * NVRTC through java.lang.foreign: source in, cubin for one architecture out. Every compile gets an explicit
 * language standard, because NVRTC 11.8 and 13.0 default to different dialects and a kernel's fate must not
 * depend on the host.
 */
public final class Nvrtc {

    public static final String STANDARD = "--std=c++17";
    private static final Pattern DIAGNOSTIC = Pattern.compile("^(.*?)\\((\\d+)\\): ((?:catastrophic )?error.*)$",
            Pattern.MULTILINE);

    private final String location;
    private final int major;
    private final int minor;
    private final MethodHandle createProgram;
    private final MethodHandle compileProgram;
    private final MethodHandle destroyProgram;
    private final MethodHandle getLogSize;
    private final MethodHandle getLog;
    private final MethodHandle getCubinSize;
    private final MethodHandle getCubin;
    private final MethodHandle getErrorString;

    private Nvrtc(NvrtcLocator.Found found) {
        this.location = found.location();
        Linker linker = Linker.nativeLinker();
        SymbolLookup lib = found.lookup();
        createProgram = handle(linker, lib, "nvrtcCreateProgram",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        compileProgram = handle(linker, lib, "nvrtcCompileProgram",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
        destroyProgram = handle(linker, lib, "nvrtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getLogSize = handle(linker, lib, "nvrtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getLog = handle(linker, lib, "nvrtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getCubinSize = handle(linker, lib, "nvrtcGetCUBINSize", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getCubin = handle(linker, lib, "nvrtcGetCUBIN", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        getErrorString = handle(linker, lib, "nvrtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        MethodHandle version = handle(linker, lib, "nvrtcVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment maj = arena.allocate(JAVA_INT);
            MemorySegment min = arena.allocate(JAVA_INT);
            check((int) version.invokeExact(maj, min), "nvrtcVersion");
            this.major = maj.get(JAVA_INT, 0);
            this.minor = min.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw NativeLibraries.rethrow(t);
        }
    }

    /** Loads NVRTC from the configured path, $KEVO_NVRTC or the usual CUDA locations. */
    public static Nvrtc load(Optional<Path> configured) {
        return new Nvrtc(new NvrtcLocator(System.getenv()).load(configured, Arena.global()));
    }

    public String version() {
        return major + "." + minor;
    }

    public String location() {
        return location;
    }

    /**
     * Compiles one translation unit to a cubin.
     *
     * @param headers include name to contents, offered to {@code #include "name"}
     * @param arch e.g. {@code sm_90}
     * @throws CompileException when NVRTC rejects the source
     */
    public Compilation compile(String name, String source, Map<String, String> headers, String arch) {
        return compile(name, source, headers, arch, Map.of());
    }

    /**
     * As {@link #compile(String, String, Map, String)}, with macros defined as by {@code -DNAME=VALUE} (a kernel
     * file's knobs): the source stays the file itself, so NVRTC's line numbers are the file's.
     */
    public Compilation compile(String name, String source, Map<String, String> headers, String arch,
                               Map<String, String> macros) {
        return compile(name, source, headers, arch, macros, List.of());
    }

    /**
     * As above, with more NVRTC options after kevo's own: for tests that ask the compiler itself what it made
     * ({@code --ptxas-options=-v} writes each kernel's registers and memory into the log).
     */
    Compilation compile(String name, String source, Map<String, String> headers, String arch,
                        Map<String, String> macros, List<String> extraOptions) {
        List<String> options = new ArrayList<>(List.of(STANDARD, "--gpu-architecture=" + arch));
        macros.forEach((macro, value) -> options.add("-D" + macro + "=" + value));
        options.addAll(extraOptions);
        long start = System.nanoTime();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment programOut = arena.allocate(ADDRESS);
            List<String> names = new ArrayList<>(headers.keySet());
            MemorySegment headerSources = strings(arena, names.stream().map(headers::get).toList());
            MemorySegment headerNames = strings(arena, names);
            check((int) createProgram.invokeExact(programOut, arena.allocateFrom(source), arena.allocateFrom(name),
                    names.size(), headerSources, headerNames), "nvrtcCreateProgram");
            MemorySegment program = programOut.get(ADDRESS, 0);
            try {
                int rc = (int) compileProgram.invokeExact(program, options.size(), strings(arena, options));
                String log = log(arena, program);
                if (rc != 0) {
                    throw new CompileException(firstError(name, log, errorString(rc)), log);
                }
                MemorySegment size = arena.allocate(JAVA_LONG);
                check((int) getCubinSize.invokeExact(program, size), "nvrtcGetCUBINSize");
                MemorySegment cubin = arena.allocate(size.get(JAVA_LONG, 0));
                check((int) getCubin.invokeExact(program, cubin), "nvrtcGetCUBIN");
                Duration time = Duration.ofNanos(System.nanoTime() - start);
                return new Compilation(name, arch, cubin.toArray(JAVA_BYTE), log, time, options);
            } finally {
                check((int) destroyProgram.invokeExact(programOut), "nvrtcDestroyProgram");
            }
        } catch (Throwable t) {
            throw NativeLibraries.rethrow(t);
        }
    }

    /** The first error of a log as {@code file:line: error: ...}, the form editors jump to. */
    static String firstError(String name, String log, String fallback) {
        Matcher m = DIAGNOSTIC.matcher(log);
        if (m.find()) {
            return m.group(1).trim() + ":" + m.group(2) + ": " + m.group(3).trim();
        }
        String firstLine = log.lines().filter(l -> !l.isBlank()).findFirst().orElse(fallback);
        return name + ": " + firstLine.trim();
    }

    private String log(Arena arena, MemorySegment program) throws Throwable {
        MemorySegment size = arena.allocate(JAVA_LONG);
        check((int) getLogSize.invokeExact(program, size), "nvrtcGetProgramLogSize");
        long bytes = size.get(JAVA_LONG, 0);
        if (bytes <= 1) {
            return "";
        }
        MemorySegment buffer = arena.allocate(bytes);
        check((int) getLog.invokeExact(program, buffer), "nvrtcGetProgramLog");
        return buffer.getString(0);
    }

    private String errorString(int rc) {
        try {
            MemorySegment s = (MemorySegment) getErrorString.invokeExact(rc);
            return s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "NVRTC error " + rc;
        }
    }

    private void check(int rc, String call) {
        if (rc != 0) {
            throw KevoException.environment(call + " failed: " + errorString(rc) + " (NVRTC " + location + ")");
        }
    }

    private static MemorySegment strings(Arena arena, List<String> values) {
        if (values.isEmpty()) {
            return MemorySegment.NULL;
        }
        MemorySegment array = arena.allocate(ADDRESS, values.size());
        for (int i = 0; i < values.size(); i++) {
            array.setAtIndex(ADDRESS, i, arena.allocateFrom(values.get(i)));
        }
        return array;
    }

    private static MethodHandle handle(Linker linker, SymbolLookup lib, String symbol, FunctionDescriptor descriptor) {
        return NativeLibraries.downcall(linker, lib, symbol, descriptor, "NVRTC library", "");
    }
}
