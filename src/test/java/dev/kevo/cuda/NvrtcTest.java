package dev.kevo.cuda;

import dev.kevo.NeedsNvrtc;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Real NVRTC, no GPU: compiling needs only the library. Without one they skip visibly, except in CI, which installs
 * NVRTC on purpose and sets KEVO_REQUIRE_NVRTC=1 so that they fail there instead.
 */
@NeedsNvrtc
class NvrtcTest {

    private static final Path ROOT = Path.of(System.getProperty("kevo.root", "."));
    private static final Path BROKEN = ROOT.resolve("src/test/resources/broken");
    private static final String ARCH = "sm_90";

    private static Nvrtc nvrtc;

    @BeforeAll
    static void loadNvrtc() {
        nvrtc = Nvrtc.load(Optional.empty());
    }

    static Stream<Path> shippedKernels() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("seeds", "seeds/log_softmax", "seeds/masked_softmax", "seeds/softmax_backward",
                "seeds/log_softmax_backward", "evaluator/baselines")) {
            try (Stream<Path> s = Files.list(ROOT.resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".cu")).sorted().forEach(files::add);
            }
        }
        return files.stream();
    }

    private static Compilation compile(Path file) throws IOException {
        return nvrtc.compile(file.getFileName().toString(), Files.readString(file), Prelude.headers(), ARCH);
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), () -> "expected '" + part + "' in: " + message);
        }
    }

    private static void assertCubin(Compilation c) {
        assertTrue(c.cubin().length > 64, "cubin of " + c.cubin().length + " bytes");
        assertArrayEquals(new byte[] {0x7f, 'E', 'L', 'F'}, Arrays.copyOf(c.cubin(), 4), "a cubin is an ELF file");
    }

    @Test
    void versionAndLocation() {
        assertTrue(nvrtc.version().matches("\\d+\\.\\d+"), nvrtc.version());
        assertTrue(Integer.parseInt(nvrtc.version().split("\\.")[0]) >= 11, nvrtc.version());
        assertFalse(nvrtc.location().isBlank());
        assertTrue(nvrtc.location().contains("libnvrtc"), nvrtc.location());
    }

    @ParameterizedTest
    @MethodSource("shippedKernels")
    void everyShippedKernelCompilesAndDefinesItsPlansKernels(Path file) throws IOException {
        KernelFile kernel = ContractParser.read(file);
        // A knobbed seed compiles with its knobs' current values defined, as kevo compiles it, and KEVO_X/KEVO_Y
        // as the element types of its first dtype.
        Compilation c = nvrtc.compile(file.getFileName().toString(), Files.readString(file), Prelude.headers(), ARCH,
                kernel.macros(kernel.dtypes().getFirst()));
        assertCubin(c);
        assertEquals(file.getFileName().toString(), c.name());
        assertEquals(ARCH, c.arch());
        assertEquals(List.of("--std=c++17", "--gpu-architecture=" + ARCH), c.options().subList(0, 2));
        assertEquals(kernel.knobs().macros().size() + 2, c.options().size() - 2, c.options()::toString);
        assertFalse(c.log().contains("error"), c.log());
        for (String name : kernel.kernelNames()) {
            assertTrue(c.definesKernel(name), file + " defines " + name);
            assertFalse(c.definesKernel(name + "_v2"), name + "_v2");
            String prefix = name.substring(0, name.length() - 1);
            if (!kernel.kernelNames().contains(prefix)) {
                assertFalse(c.definesKernel(prefix), "a prefix of " + name + " is not a kernel");
            }
        }
        assertFalse(c.definesKernel("no_such_kernel"));
        assertFalse(c.definesKernel("online_add"), "a __device__ helper is not a kernel");
    }

    @Test
    void theCompileErrorNamesFileAndLine() throws IOException {
        Path file = BROKEN.resolve("syntax_error.cu");
        CompileException e = assertThrows(CompileException.class, () -> compile(file));
        assertTrue(e.getMessage().startsWith("syntax_error.cu:13: error: "), e::getMessage);
        assertContains(e.getMessage(), "undeclared_scale");
        assertFalse(e.getMessage().contains("\n"), e::getMessage);
        assertContains(e.log(), "syntax_error.cu(13)");
        assertEquals(KevoException.Kind.INPUT, e.kind());

        CompileException parse = assertThrows(CompileException.class, () -> compile(BROKEN.resolve("parse_error.cu")));
        assertTrue(parse.getMessage().startsWith("parse_error.cu:11: error: "), parse::getMessage);
    }

    @Test
    void theFirstErrorIsReportedNotTheLast() {
        String source = "extern \"C\" __global__ void k(float* y) {\n"
                + "    y[0] = first_unknown;\n"
                + "    y[1] = second_unknown;\n"
                + "}\n";
        CompileException e = assertThrows(CompileException.class, () -> nvrtc.compile("two.cu", source, Map.of(), ARCH));
        assertTrue(e.getMessage().startsWith("two.cu:2: error: "), e::getMessage);
        assertContains(e.getMessage(), "first_unknown");
        assertContains(e.log(), "second_unknown");
    }

    @Test
    void infinityNeedsKevoH() throws IOException {
        String source = Files.readString(BROKEN.resolve("no_prelude.cu"));
        CompileException e = assertThrows(CompileException.class,
                () -> nvrtc.compile("no_prelude.cu", source, Prelude.headers(), ARCH));
        assertTrue(e.getMessage().startsWith("no_prelude.cu:9: error: "), e::getMessage);
        assertContains(e.getMessage(), "INFINITY");

        String fixed = source.replace("*/\n", "*/\n#include \"kevo.h\"\n");
        assertCubin(nvrtc.compile("no_prelude.cu", fixed, Prelude.headers(), ARCH));

        // kevo.h exists only because kevo hands it to NVRTC
        CompileException noHeader = assertThrows(CompileException.class,
                () -> nvrtc.compile("no_prelude.cu", fixed, Map.of(), ARCH));
        assertContains(noHeader.getMessage(), "no_prelude.cu:8: ", "kevo.h");
    }

    @Test
    void everyNameKevoHPromisesIsDefined() {
        String source = """
                #include "kevo.h"
                extern "C" __global__ void uses_prelude(float* y) {
                    float m = -INFINITY, s = 0.0f, n = NAN;
                    float a = FLT_MAX + FLT_MIN + FLT_EPSILON + KEVO_INF + KEVO_LOG2E;
                    kevo_online_merge(m, s, y[0], 1.0f);
                    kevo_warp_online(m, s);
                    y[threadIdx.x] = kevo_warp_max(a) + kevo_warp_sum(n) + m + s + kevo_cdiv(7, 2);
                }
                """;
        Compilation c = nvrtc.compile("prelude.cu", source, Prelude.headers(), ARCH);
        assertTrue(c.definesKernel("uses_prelude"));
    }

    @Test
    void cxx17IsOn() {
        String source = """
                struct Pair { float m, s; };
                __device__ Pair make(float v) { return {v, 1.0f}; }   // brace-initialised return (C++11)
                template <int N> __device__ float pick(float v) {
                    if constexpr (N > 1) { return v * N; } else { return v; }   // C++17
                }
                extern "C" __global__ void modern(float* y) {
                    auto [m, s] = make(y[0]);                                     // structured bindings (C++17)
                    y[threadIdx.x] = pick<2>(m) + pick<1>(s);
                }
                """;
        Compilation c = nvrtc.compile("modern.cu", source, Map.of(), ARCH);
        assertTrue(c.options().contains(Nvrtc.STANDARD));
        assertEquals("--std=c++17", Nvrtc.STANDARD);
        assertTrue(c.definesKernel("modern"));
    }

    @Test
    void definesKernelRejectsMissingAndMangledKernels() throws IOException {
        Path file = BROKEN.resolve("missing_kernel.cu");
        KernelFile kernel = ContractParser.read(file);
        Compilation c = compile(file);
        assertEquals(List.of("softmax_fast"), kernel.kernelNames());
        assertFalse(c.definesKernel("softmax_fast"), "the plan's kernel is not in the file");
        assertTrue(c.definesKernel("softmax_slow"));
        assertFalse(c.definesKernel("softmax_mangled"), "without extern \"C\" the name is mangled");
    }

    @Test
    void compilationsOfTheSameSourceAreEqual() {
        String source = "extern \"C\" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n";
        Compilation a = nvrtc.compile("same.cu", source, Map.of(), ARCH);
        Compilation b = nvrtc.compile("same.cu", source, Map.of(), ARCH);
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        Compilation other = nvrtc.compile("same.cu", source.replace("1.0f", "2.0f"), Map.of(), ARCH);
        assertFalse(a.equals(other));
    }

    @Test
    void firstErrorFormatsNvrtcDiagnostics() {
        String log = "k.cu(3): warning #177-D: variable \"t\" was declared but never referenced\n"
                + "k.cu(12): error: identifier \"q\" is undefined\n"
                + "k.cu(20): error: expected a \";\"\n";
        assertEquals("k.cu:12: error: identifier \"q\" is undefined", Nvrtc.firstError("k.cu", log, "fallback"));
        assertEquals("kevo.h:4: catastrophic error: cannot open source file \"x.h\"",
                Nvrtc.firstError("k.cu", "kevo.h(4): catastrophic error: cannot open source file \"x.h\"\n", "fb"));
        assertEquals("k.cu: something odd", Nvrtc.firstError("k.cu", "\n  something odd\nmore\n", "fb"));
        assertEquals("k.cu: NVRTC_ERROR_COMPILATION", Nvrtc.firstError("k.cu", "", "NVRTC_ERROR_COMPILATION"));
    }
}
