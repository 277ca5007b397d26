package dev.kevo.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.kevo.TestJvm;
import dev.kevo.cuda.Compilation;
import dev.kevo.cuda.CompileException;
import dev.kevo.cuda.Nvrtc;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Task;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Compiles the kernels of many rendered files with NVRTC, each distinct kernel once. A rendered file is its header,
 * the fixed library, its *Cfg structs and its kernels; a kernel's code is decided by its definition and the structs
 * it names, and bred genomes share most of them (the renderer test's 40 population files hold 582 kernels, 327 of
 * them distinct). Each distinct kernel goes into a batch file beside the library once, its structs and its name given
 * a suffix so that variants from different files can sit side by side; NVRTC's time is per kernel, so this costs
 * what the distinct kernels cost, not what every file's copies cost. NVRTC 11.8 serialises compiles across threads
 * (8 files: 4.4 s on one thread, 4.7 s on two), so a second core is used by a helper JVM instead.
 *
 * <p>Nothing is tested less: every file is first checked to be exactly header, library, its structs and its kernels'
 * definitions; every distinct kernel compiles for the same architecture with kevo's options; every file's kernels are
 * found in a cubin; a warning or an error sends the files involved through NVRTC whole, so the failure names a file.
 */
final class KernelBatch {

    private static final Pattern STRUCT = Pattern.compile("struct (\\w+) \\{\\n(?: {4}[^\\n]*\\n)*};\\n");
    /** Kernels per batch file: large enough that the per-file cost vanishes, small enough to read a failure. */
    private static final int PER_BATCH = 64;

    private record Variant(String file, String kernel, String renamed, String code) {
    }

    private final Map<String, Variant> distinct = new LinkedHashMap<>();
    private final Map<String, String> sources = new LinkedHashMap<>();
    private int kernels;
    /** The library every added file holds: one operator's ({@link KernelRenderer#library}). */
    private final String library;

    /** A batch of softmax files. */
    KernelBatch() {
        this(KernelRenderer.LIBRARY);
    }

    /** A batch of files that hold {@code library}, all rendered for one operator. */
    KernelBatch(String library) {
        this.library = library;
    }

    /** Adds a rendered file: its source and the genome and dtype it was rendered from. */
    void add(String name, String source, Genome genome, Precision dtype) {
        add(name, source, genome, Task.softmax(dtype));
    }

    /** Adds a file rendered for {@code task}: its source and the genome it was rendered from. */
    void add(String name, String source, Genome genome, Task task) {
        Precision dtype = task.dtype();
        sources.put(name, source);
        List<KernelRenderer.Kernel> fileKernels = KernelRenderer.plans(genome, task).stream()
                .flatMap(p -> p.launches().stream()).map(KernelRenderer.Launch::kernel).distinct().toList();
        String definitions = String.join("", fileKernels.stream().map(KernelRenderer.Kernel::definition).toList());
        int at = source.indexOf(library);
        assertTrue(at > 0, name + ": the library, as it is");
        String rest = source.substring(at + library.length());
        assertTrue(rest.endsWith(definitions), name + ": ends with its kernels' definitions, nothing else");
        String configs = rest.substring(0, rest.length() - definitions.length());
        Map<String, String> structs = new LinkedHashMap<>();
        Matcher m = STRUCT.matcher(configs);
        while (m.find()) {
            structs.put(m.group(1), m.group());
        }
        assertEquals(configs.strip(), String.join("", structs.values()).strip(),
                name + ": between the library and the kernels only *Cfg structs");
        for (KernelRenderer.Kernel kernel : fileKernels) {
            Set<String> used = uses(kernel.call(), structs);
            StringBuilder key = new StringBuilder(kernel.definition());
            used.forEach(s -> key.append(structs.get(s)));
            kernels++;
            distinct.computeIfAbsent(key.toString(), k -> variant(name, kernel, used, structs, distinct.size()));
        }
    }

    /** The structs a call names, and the structs those name, in the file's order. */
    private static Set<String> uses(String text, Map<String, String> structs) {
        Set<String> used = new LinkedHashSet<>();
        List<String> pending = new ArrayList<>(List.of(text));
        while (!pending.isEmpty()) {
            String next = pending.removeLast();
            for (Map.Entry<String, String> s : structs.entrySet()) {
                if (!used.contains(s.getKey()) && Pattern.compile("\\b" + s.getKey() + "\\b").matcher(next).find()) {
                    used.add(s.getKey());
                    pending.add(s.getValue().substring(s.getValue().indexOf('{')));
                }
            }
        }
        return used;
    }

    private static Variant variant(String file, KernelRenderer.Kernel kernel, Set<String> used,
                                   Map<String, String> structs, int index) {
        String suffix = "_v" + index;
        StringBuilder code = new StringBuilder();
        structs.forEach((name, text) -> {
            if (used.contains(name)) {
                code.append(rename(text, used, suffix));
            }
        });
        String renamed = kernel.name() + suffix;
        String definition = kernel.definition().replaceFirst("\\b" + kernel.name() + "\\(", renamed + "(");
        code.append(rename(definition, used, suffix));
        return new Variant(file, kernel.name(), renamed, code.toString());
    }

    private static String rename(String text, Set<String> structs, String suffix) {
        String out = text;
        for (String s : structs) {
            out = out.replaceAll("\\b" + s + "\\b", s + suffix);
        }
        return out;
    }

    int kernels() {
        return kernels;
    }

    int distinctKernels() {
        return distinct.size();
    }

    /**
     * Compiles every distinct kernel; fails naming a file when one does not compile cleanly. NVRTC serialises compiles
     * within a process, so with a second core a child JVM ({@link #main}) takes every other batch meanwhile.
     */
    void compileAll(Nvrtc nvrtc, String arch) throws IOException, InterruptedException {
        List<Variant> all = List.copyOf(distinct.values());
        List<List<Variant>> batches = new ArrayList<>();
        for (int from = 0; from < all.size(); from += PER_BATCH) {
            batches.add(all.subList(from, Math.min(all.size(), from + PER_BATCH)));
        }
        boolean helper = Runtime.getRuntime().availableProcessors() > 1 && batches.size() > 1;
        Path dir = Files.createTempDirectory("kevo-kernel-batch");
        Process child = null;
        try {
            if (helper) {
                List<String> theirs = new ArrayList<>();
                for (int b = 1; b < batches.size(); b += 2) {
                    theirs.add(Files.writeString(dir.resolve("batch" + b + ".cu"), source(batches.get(b))).toString());
                }
                List<String> command = new ArrayList<>(TestJvm.nativeCommand(KernelBatch.class, arch));
                command.addAll(theirs);
                child = new ProcessBuilder(command).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("child.log").toFile()).start();
            }
            for (int b = 0; b < batches.size(); b += helper ? 2 : 1) {
                String name = "batch" + b + ".cu";
                try {
                    check(nvrtc, arch, batches.get(b), name, nvrtc.compile(name, source(batches.get(b)),
                            Prelude.headers(), arch));
                } catch (CompileException e) {
                    blame(nvrtc, arch, batches.get(b), name + ": " + e.getMessage());
                }
            }
            if (child != null) {
                boolean done = child.waitFor(10, TimeUnit.MINUTES);
                if (!done) {
                    child.destroyForcibly();
                }
                assertTrue(done && child.exitValue() == 0, "the helper JVM: " + Files.readString(dir.resolve("child.log")));
                for (int b = 1; b < batches.size(); b += 2) {
                    String name = "batch" + b + ".cu";
                    Path error = dir.resolve(name + ".error");
                    if (Files.exists(error)) {
                        blame(nvrtc, arch, batches.get(b), name + ": " + Files.readString(error));
                    }
                    check(nvrtc, arch, batches.get(b), name, new Compilation(name, arch,
                            Files.readAllBytes(dir.resolve(name + ".cubin")), Files.readString(dir.resolve(name + ".log")),
                            Duration.ZERO, List.of()));
                }
            }
        } finally {
            if (child != null && child.isAlive()) {
                child.destroyForcibly().waitFor();
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(dir);
        }
    }

    private String source(List<Variant> batch) {
        StringBuilder source = new StringBuilder("#include \"kevo.h\"\n\n").append(library).append('\n');
        batch.forEach(v -> source.append("// ").append(v.kernel()).append(" of ").append(v.file()).append('\n')
                .append(v.code()));
        return source.toString();
    }

    private void check(Nvrtc nvrtc, String arch, List<Variant> batch, String name, Compilation c) {
        if (c.log().contains("warning")) {
            blame(nvrtc, arch, batch, name + ": " + c.log());
        }
        for (Variant v : batch) {
            assertTrue(c.definesKernel(v.renamed()), v.file() + " defines " + v.kernel());
        }
    }

    /**
     * The helper JVM: compiles each batch file given after the architecture, writing beside it NAME.cubin and NAME.log,
     * or NAME.error when NVRTC rejects it.
     */
    public static void main(String[] args) throws IOException {
        Nvrtc nvrtc = Nvrtc.load(Optional.empty());
        for (String file : Arrays.asList(args).subList(1, args.length)) {
            Path path = Path.of(file);
            String name = path.getFileName().toString();
            try {
                Compilation c = nvrtc.compile(name, Files.readString(path), Prelude.headers(), args[0]);
                Files.write(path.resolveSibling(name + ".cubin"), c.cubin());
                Files.writeString(path.resolveSibling(name + ".log"), c.log());
            } catch (CompileException e) {
                Files.writeString(path.resolveSibling(name + ".error"), e.getMessage() + "\n" + e.log());
            }
        }
    }

    /** Compiles the whole files a failing batch drew from, so that the failure names one; else fails as the batch. */
    private void blame(Nvrtc nvrtc, String arch, List<Variant> batch, String batchFailure) {
        for (String file : batch.stream().map(Variant::file).distinct().toList()) {
            try {
                Compilation c = nvrtc.compile(file, sources.get(file), Prelude.headers(), arch);
                assertTrue(!c.log().contains("warning"), file + ": " + c.log());
            } catch (CompileException e) {
                fail(file + ": " + e.getMessage());
            }
        }
        fail("kernels compile in their own files but not side by side: " + batchFailure);
    }
}
