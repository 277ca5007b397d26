package dev.kevo.export;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The compilers the export tests build generated code with, and running what they build. */
public final class Toolchain {
    private Toolchain() {
    }

    /** nvcc: $KEVO_NVCC, else on the PATH, else /usr/local/cuda/bin. */
    static Optional<Path> nvcc() {
        return find("KEVO_NVCC", "nvcc", List.of("/usr/local/cuda/bin/nvcc"));
    }

    /** A C++ compiler for host-only code (the plan header needs no CUDA): $CXX, c++ or g++, else nvcc. */
    static Optional<Path> hostCompiler() {
        return find("CXX", "c++", List.of()).or(() -> find("CXX", "g++", List.of())).or(Toolchain::nvcc);
    }

    /** Python 3: $KEVO_PYTHON, else python3 on the PATH. */
    static Optional<Path> python() {
        return find("KEVO_PYTHON", "python3", List.of());
    }

    /**
     * A Python with torch, and what a torch extension is compiled with there.
     *
     * @param includes torch's include folders ({@code cpp_extension.include_paths()})
     * @param std      the C++ standard torch's cpp_extension compiles extensions with ({@code c++17}, {@code c++20})
     */
    public record Torch(Path python, String version, List<String> includes, String pythonInclude, int cxx11Abi, String std) {
        @Override
        public String toString() {
            return "torch " + version + " (" + python + ")";
        }
    }

    private static final String TORCH_PROBE = """
            import json, sysconfig, torch
            from torch.utils import cpp_extension
            source = open(cpp_extension.__file__).read()
            print(json.dumps({"version": torch.__version__, "includes": cpp_extension.include_paths(),
                              "python": sysconfig.get_paths()["include"], "abi": int(torch._C._GLIBCXX_USE_CXX11_ABI),
                              "std": "c++20" if "-std=c++20" in source else "c++17"}))
            """;

    private static Optional<Torch> torch;

    /**
     * $KEVO_TORCH_PYTHON, else python3 on the PATH, where it imports torch (asked once: importing torch takes
     * seconds).
     */
    public static synchronized Optional<Torch> torch() {
        if (torch == null) {
            torch = find("KEVO_TORCH_PYTHON", "python3", List.of()).flatMap(Toolchain::probeTorch);
        }
        return torch;
    }

    private static Optional<Torch> probeTorch(Path python) {
        try {
            Path dir = Files.createTempDirectory("kevo-torch-probe");
            Result r = run(dir, 120, List.of(python.toString(), "-c", TORCH_PROBE));
            String last = r.output().strip().lines().reduce((a, b) -> b).orElse("");
            if (r.code() != 0 || !last.startsWith("{")) {
                return Optional.empty();
            }
            var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(last);
            List<String> includes = new ArrayList<>();
            json.get("includes").forEach(n -> includes.add(n.asText()));
            return Optional.of(new Torch(python, json.get("version").asText(), List.copyOf(includes),
                    json.get("python").asText(), json.get("abi").asInt(), json.get("std").asText()));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    private static Optional<Path> find(String variable, String command, List<String> fallbacks) {
        String named = System.getenv(variable);
        if (named != null && !named.isBlank() && Files.isExecutable(Path.of(named))) {
            return Optional.of(Path.of(named));
        }
        List<Path> candidates = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, command));
                }
            }
        }
        fallbacks.forEach(f -> candidates.add(Path.of(f)));
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }

    /** What a command printed, and its exit code. */
    record Result(int code, String output) {
    }

    static Result run(Path dir, long timeoutSeconds, List<String> command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "run", ".log");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", command) + ": still running after " + timeoutSeconds + " s");
        }
        return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    /** Runs a command that must succeed, failing the test with its output if it does not. */
    public static String succeed(Path dir, long timeoutSeconds, String... command) throws IOException, InterruptedException {
        Result r = run(dir, timeoutSeconds, List.of(command));
        if (r.code() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + r.code() + ":\n" + tail(r.output()));
        }
        return r.output();
    }

    /** Compiles one host C++ file (C++17) into an executable in the same folder. */
    static Path compileHost(Path compiler, Path source) throws IOException, InterruptedException {
        Path exe = source.resolveSibling(source.getFileName().toString().replaceFirst("\\.cpp$", ""));
        boolean nvcc = compiler.getFileName().toString().startsWith("nvcc");
        List<String> cmd = new ArrayList<>(List.of(compiler.toString(), "-std=c++17", "-O1"));
        if (!nvcc) {
            cmd.addAll(List.of("-Wall", "-Wno-unused-parameter", "-Wno-unused-function", "-Wno-tautological-compare", "-Werror"));
        }
        cmd.addAll(List.of("-o", exe.toString(), source.toString()));
        succeed(source.getParent(), 300, cmd.toArray(String[]::new));
        return exe;
    }

    static String tail(String text) {
        return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
    }

    static List<Path> files(Path dir, String suffix) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
        }
    }
}
