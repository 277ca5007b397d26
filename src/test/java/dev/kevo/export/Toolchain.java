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
final class Toolchain {
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
    static String succeed(Path dir, long timeoutSeconds, String... command) throws IOException, InterruptedException {
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
