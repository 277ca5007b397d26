package dev.kevo;

import dev.kevo.export.HostCompilerTest;
import dev.kevo.export.NvccTest;
import dev.kevo.export.PythonTest;
import dev.kevo.export.TorchTest;
import dev.kevo.worker.SlurmTest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.ConstantInstruction;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.classfile.instruction.NewObjectInstruction;
import java.lang.constant.ConstantDesc;
import java.lang.constant.DirectMethodHandleDesc;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.platform.commons.annotation.Testable;

/**
 * Which test methods reach something a fresh machine lacks (NVRTC, a GPU, Chromium, nvcc, a C++ compiler, python3, torch, Slurm)
 * without the annotation that skips them there. It reads bytecode rather than source, so that a fully qualified
 * name, a static import, a lambda or a helper class cannot hide a call; and it follows calls into kevo's own classes
 * (test support such as KernelBatch, and production code) to any depth.
 *
 * <p>What counts as reaching is a short list of entry points, each where the dependency is first needed: loading
 * NVRTC ({@code Nvrtc.load}), opening a device ({@code Gpu.open}, {@code new Gpu}), any Selenium class, the export
 * tests' compiler finders ({@code Toolchain}), and, in test code, starting a process in a method that names a Slurm
 * command. Probes that answer "is it there?" ({@code Gpu.count}, the conditions' locators) are not entry points:
 * every machine may call them. Commands run through {@code KevoCli} are not followed, because picocli picks them by
 * reflection; their tests carry the annotations by hand. So do tests of compute-sanitizer ({@code @SanitizerTest},
 * which covers a GPU and NVRTC too): kevo runs it only as the process a worker starts in, which every pool could
 * start, so no call tells a test that runs it from one that does not.
 */
public final class TestNeeds {

    /** Something a fresh machine lacks, and the annotations that make a test skip without it. */
    public enum Need {
        NVRTC("NVRTC", NeedsNvrtc.class, GpuTest.class, SanitizerTest.class),
        GPU("a GPU", GpuTest.class, SanitizerTest.class),
        BROWSER("Chromium", BrowserTest.class),
        NVCC("nvcc", NvccTest.class),
        HOST_COMPILER("a C++ compiler", HostCompilerTest.class, NvccTest.class),
        PYTHON("python3", PythonTest.class, TorchTest.class),
        TORCH("a Python with torch", TorchTest.class),
        SLURM("Slurm", SlurmTest.class);

        private final String what;
        private final List<Class<? extends Annotation>> covers;

        @SafeVarargs
        Need(String what, Class<? extends Annotation>... covers) {
            this.what = what;
            this.covers = List.of(covers);
        }

        boolean coveredBy(AnnotatedElement element) {
            return covers.stream().anyMatch(element::isAnnotationPresent);
        }

        String annotation() {
            return "@" + covers.getFirst().getSimpleName();
        }
    }

    /** A method, as bytecode names it. */
    record Ref(String owner, String name, String descriptor) {
        @Override
        public String toString() {
            return owner.substring(owner.lastIndexOf('/') + 1).replace('$', '.') + "." + name;
        }
    }

    /** Why a method needs something: the entry point it reaches, and the calls that lead there from it. */
    record Reach(Need need, List<Ref> path) {
    }

    private static final String KEVO = "dev/kevo/";
    private static final Map<Ref, Need> ENTRY_POINTS = Map.of(
            new Ref("dev/kevo/cuda/Nvrtc", "load", ""), Need.NVRTC,
            new Ref("dev/kevo/cuda/Gpu", "open", ""), Need.GPU,
            new Ref("dev/kevo/cuda/Gpu", "<init>", ""), Need.GPU,
            new Ref("dev/kevo/export/Toolchain", "nvcc", ""), Need.NVCC,
            new Ref("dev/kevo/export/Toolchain", "hostCompiler", ""), Need.HOST_COMPILER,
            new Ref("dev/kevo/export/Toolchain", "compileHost", ""), Need.HOST_COMPILER,
            new Ref("dev/kevo/export/Toolchain", "python", ""), Need.PYTHON,
            new Ref("dev/kevo/export/Toolchain", "torch", ""), Need.TORCH);
    private static final String SELENIUM = "org/openqa/selenium/";
    private static final Set<String> SLURM_COMMANDS = Set.of("salloc", "sbatch", "srun", "sinfo", "squeue",
            "scancel", "scontrol");
    private static final Set<Class<? extends Annotation>> CLASS_WIDE = Set.of(BeforeAll.class, AfterAll.class,
            BeforeEach.class, AfterEach.class);

    private final ClassLoader loader;
    private final Set<String> testCode;
    private final Map<String, Optional<ClassModel>> models = new HashMap<>();
    private final Map<Ref, Map<Need, Reach>> reached = new HashMap<>();
    private final Set<Ref> inProgress = new HashSet<>();
    private final Map<Ref, Boolean> processes = new HashMap<>();

    /**
     * @param testCode internal names of the classes that are test code, where a Slurm command's name next to a
     *                 process start counts (production code names them in messages and in the srun launcher, which
     *                 tests exercise without a cluster)
     */
    public TestNeeds(ClassLoader loader, Set<String> testCode) {
        this.loader = loader;
        this.testCode = Set.copyOf(testCode);
    }

    /**
     * One line per unguarded reach in {@code testClass}: a test method that reaches a need that neither it nor its
     * class (or an enclosing class) is annotated for, and a method JUnit runs for the whole class (static and
     * instance initialisers, before/after methods) that reaches one its class is not annotated for.
     */
    public List<String> problems(Class<?> testClass) {
        List<String> out = new ArrayList<>();
        String owner = testClass.getName().replace('.', '/');
        for (Executable e : executables(testClass)) {
            boolean test = e instanceof Method m && isTest(m);
            boolean classWide = !(e instanceof Method m) || CLASS_WIDE.stream().anyMatch(m::isAnnotationPresent);
            if (!test && !classWide) {
                continue;
            }
            String name = e instanceof Method m ? m.getName() : "<init>";
            Ref ref = new Ref(owner, name, descriptor(e));
            if (resolve(ref).isEmpty()) {
                out.add(testClass.getName() + "." + name + ": no bytecode for " + ref.descriptor() + ", not checked");
                continue;
            }
            for (Reach r : reach(ref).values()) {
                boolean covered = coveredByClass(testClass, r.need()) || (test && r.need().coveredBy(e));
                if (!covered) {
                    out.add(testClass.getName() + "." + name + " reaches " + r.need().what + " (" + path(r)
                            + ") without " + r.need().annotation()
                            + (test ? "" : " on the class (JUnit runs it for every test)"));
                }
            }
        }
        Optional<MethodModel> clinit = model(owner).flatMap(m -> m.methods().stream()
                .filter(mm -> mm.methodName().equalsString("<clinit>")).findFirst());
        clinit.ifPresent(c -> reach(new Ref(owner, "<clinit>", c.methodType().stringValue())).values().stream()
                .filter(r -> !coveredByClass(testClass, r.need()))
                .forEach(r -> out.add(testClass.getName() + " static initialiser reaches " + r.need().what + " ("
                        + path(r) + ") without " + r.need().annotation() + " on the class")));
        return out;
    }

    /** A test method: one JUnit's engines discover ({@code @Test}, {@code @ParameterizedTest}...). */
    static boolean isTest(Method m) {
        return Arrays.stream(m.getAnnotations())
                .anyMatch(a -> a.annotationType().isAnnotationPresent(Testable.class)
                        || a.annotationType().equals(Testable.class));
    }

    private static boolean coveredByClass(Class<?> c, Need need) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            if (need.coveredBy(k)) {
                return true;
            }
        }
        return false;
    }

    private static List<Executable> executables(Class<?> c) {
        List<Executable> all = new ArrayList<>(Arrays.asList(c.getDeclaredMethods()));
        all.addAll(Arrays.asList(c.getDeclaredConstructors()));
        return all;
    }

    private static String descriptor(Executable e) {
        StringBuilder d = new StringBuilder("(");
        for (Class<?> p : e.getParameterTypes()) {
            d.append(p.descriptorString());
        }
        d.append(')').append(e instanceof Method m ? m.getReturnType().descriptorString() : "V");
        return d.toString();
    }

    private static String path(Reach r) {
        return String.join(" -> ", r.path().stream().map(Ref::toString).toList());
    }

    /** Every need {@code method} reaches, each with the first path found to it; cycles end where they began. */
    Map<Need, Reach> reach(Ref method) {
        Map<Need, Reach> known = reached.get(method);
        if (known != null) {
            return known;
        }
        Map<Need, Reach> out = new EnumMap<>(Need.class);
        Optional<MethodModel> body = resolve(method);
        if (body.isEmpty() || !inProgress.add(method)) {
            return out;
        }
        boolean namesSlurm = false;
        Optional<List<Ref>> process = Optional.empty();
        for (CodeElement e : body.get().code().map(c -> c.elementList()).orElse(List.of())) {
            List<Ref> callees = new ArrayList<>();
            switch (e) {
                case InvokeInstruction i -> callees.add(new Ref(i.owner().asInternalName(), i.name().stringValue(),
                        i.type().stringValue()));
                case InvokeDynamicInstruction d -> {
                    for (ConstantDesc arg : d.bootstrapArgs()) {
                        if (arg instanceof DirectMethodHandleDesc h) {
                            callees.add(new Ref(internal(h.owner().descriptorString()), h.methodName(),
                                    h.lookupDescriptor()));
                        }
                    }
                }
                case NewObjectInstruction n when n.className().asInternalName().startsWith(SELENIUM) ->
                        out.putIfAbsent(Need.BROWSER, new Reach(Need.BROWSER,
                                List.of(method, new Ref(n.className().asInternalName(), "<init>", ""))));
                case ConstantInstruction c when c.constantValue() instanceof String s && SLURM_COMMANDS.contains(s) ->
                        namesSlurm = true;
                default -> {
                }
            }
            for (Ref callee : callees) {
                Optional<Need> entry = entryPoint(callee);
                if (entry.isPresent()) {
                    out.putIfAbsent(entry.get(), new Reach(entry.get(), List.of(method, callee)));
                } else if (startsProcess(callee)) {
                    process = process.or(() -> Optional.of(List.of(method, callee)));
                } else if (callee.owner().startsWith(KEVO)) {
                    for (Reach r : reach(callee).values()) {
                        List<Ref> path = new ArrayList<>(List.of(method));
                        path.addAll(r.path());
                        out.putIfAbsent(r.need(), new Reach(r.need(), List.copyOf(path)));
                    }
                    if (testCode.contains(callee.owner()) && reachesProcess(callee)) {
                        process = process.or(() -> Optional.of(List.of(method, callee)));
                    }
                }
            }
        }
        if (namesSlurm && process.isPresent() && testCode.contains(method.owner())) {
            out.putIfAbsent(Need.SLURM, new Reach(Need.SLURM, process.get()));
        }
        inProgress.remove(method);
        reached.put(method, out);
        return out;
    }

    /** Whether test code starts a process from {@code method}, directly or through other test code. */
    private boolean reachesProcess(Ref method) {
        Boolean known = processes.get(method);
        if (known != null) {
            return known;
        }
        processes.put(method, false);
        boolean found = resolve(method).flatMap(MethodModel::code).stream()
                .flatMap(c -> c.elementList().stream())
                .flatMap(e -> e instanceof InvokeInstruction i
                        ? Stream.of(new Ref(i.owner().asInternalName(), i.name().stringValue(),
                        i.type().stringValue()))
                        : Stream.empty())
                .anyMatch(r -> startsProcess(r) || (testCode.contains(r.owner()) && reachesProcess(r)));
        processes.put(method, found);
        return found;
    }

    private static boolean startsProcess(Ref r) {
        return (r.owner().equals("java/lang/ProcessBuilder") && r.name().equals("<init>"))
                || (r.owner().equals("java/lang/Runtime") && r.name().equals("exec"));
    }

    private static Optional<Need> entryPoint(Ref r) {
        if (r.owner().startsWith(SELENIUM)) {
            return Optional.of(Need.BROWSER);
        }
        return Optional.ofNullable(ENTRY_POINTS.get(new Ref(r.owner(), r.name(), "")));
    }

    private static String internal(String descriptor) {
        return descriptor.substring(1, descriptor.length() - 1);
    }

    /** The body a call runs: the owner's method, else the nearest superclass's within kevo. */
    private Optional<MethodModel> resolve(Ref r) {
        for (String owner = r.owner(); owner != null && owner.startsWith(KEVO); ) {
            Optional<ClassModel> m = model(owner);
            if (m.isEmpty()) {
                return Optional.empty();
            }
            Optional<MethodModel> found = m.get().methods().stream()
                    .filter(mm -> mm.methodName().equalsString(r.name()) && mm.methodType().equalsString(r.descriptor()))
                    .findFirst();
            if (found.isPresent()) {
                return found;
            }
            owner = m.get().superclass().map(c -> c.asInternalName()).orElse(null);
        }
        return Optional.empty();
    }

    private Optional<ClassModel> model(String internalName) {
        return models.computeIfAbsent(internalName, n -> {
            try (InputStream in = loader.getResourceAsStream(n + ".class")) {
                return in == null ? Optional.empty() : Optional.of(ClassFile.of().parse(in.readAllBytes()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }
}
