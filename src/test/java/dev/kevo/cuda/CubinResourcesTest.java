package dev.kevo.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.NeedsNvrtc;
import dev.kevo.data.KernelResources;
import dev.kevo.task.ContractParser;
import dev.kevo.task.KernelFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The cubin's record of each kernel's resources against the compiler's own account of them: NVRTC asked for ptxas's
 * verbose report ({@code --ptxas-options=-v}), which states registers, stack frame and static shared memory per entry
 * function, for targets before and after sm_90's reserved shared memory.
 */
@NeedsNvrtc
class CubinResourcesTest {
    private static final Path ROOT = Path.of(System.getProperty("kevo.root", "."));
    private static final Pattern REPORT = Pattern.compile("Compiling entry function '(\\w+)'[^\\n]*\\n"
            + "[^\\n]*Function properties for \\1\\n[^\\n]*?(\\d+) bytes stack frame[^\\n]*\\n"
            + "[^\\n]*Used (\\d+) registers(?:[^\\n]*?(\\d+) bytes smem)?");
    /** Three kernels: one with static shared memory, one with a stack array indexed at run time, one with neither. */
    private static final String KERNELS = """
            extern "C" __global__ void with_shared(float* x) {
                __shared__ float s[20];
                s[threadIdx.x % 20] = x[threadIdx.x];
                __syncthreads();
                x[threadIdx.x] = s[(threadIdx.x + 1) % 20];
            }
            extern "C" __global__ void with_stack(float* x, int k) {
                float a[64];
                for (int i = 0; i < 64; ++i) a[i] = x[i * blockDim.x + threadIdx.x];
                for (int i = 0; i < k; ++i) a[(i * 7 + threadIdx.x) % 64] += x[i];  // indices known only at run time
                float s = 0.0f;
                for (int i = 0; i < 64; ++i) s += a[i] * a[63 - i];
                x[threadIdx.x] = s;
            }
            extern "C" __global__ void plain(float* x) { x[threadIdx.x] += 1.0f; }
            """;

    private static final List<String> VERBOSE = List.of("--ptxas-options=-v");

    private static Nvrtc nvrtc;

    @BeforeAll
    static void loadNvrtc() {
        nvrtc = Nvrtc.load(Optional.empty());
    }

    static Stream<String> arches() {
        return Stream.of("sm_80", "sm_90");
    }

    @ParameterizedTest
    @MethodSource("arches")
    void theCubinRecordsWhatPtxasReports(String arch) {
        Compilation c = verbose("k.cu", KERNELS, arch);
        List<String> kernels = List.of("with_shared", "with_stack", "plain");
        List<KernelResources> read = CubinResources.of(c, kernels).orElseThrow();
        assertEquals(reported(c.log(), kernels), read);
        assertEquals(80, read.get(0).staticSharedBytes(), "20 floats, without the block's reserved kilobyte");
        assertTrue(read.get(1).localBytes() >= 256, "a stack array of 64 floats: " + read.get(1));
    }

    static Stream<Path> shippedKernels() throws IOException {
        List<Path> files = new ArrayList<>();
        for (String dir : List.of("seeds", "seeds/masked_softmax", "seeds/cross_entropy")) {
            try (Stream<Path> s = Files.list(ROOT.resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".cu")).sorted().forEach(files::add);
            }
        }
        return files.stream();
    }

    @ParameterizedTest
    @MethodSource("shippedKernels")
    void everyShippedSeedReadsAsPtxasReportsIt(Path file) throws IOException {
        KernelFile kernel = ContractParser.read(file);
        Compilation c = nvrtc.compile(file.getFileName().toString(), Files.readString(file), Prelude.headers(),
                "sm_90", kernel.macros(kernel.dtypes().getFirst()), VERBOSE);
        List<String> kernels = kernel.kernelNames();
        assertEquals(reported(c.log(), kernels), CubinResources.of(c, kernels).orElseThrow(), file.toString());
    }

    @Test
    void whatIsNotACubinOrLacksTheKernelReadsAsNothing() {
        Compilation c = verbose("k.cu", KERNELS, "sm_90");
        assertEquals(Optional.empty(), CubinResources.of(c, List.of("plain", "not_there")));
        Compilation ptx = new Compilation("k.cu", "sm_90", ".version 8.0\n.target sm_90\n"
                .getBytes(StandardCharsets.US_ASCII), "", c.time(), c.options());
        assertEquals(Optional.empty(), CubinResources.of(ptx, List.of("plain")));
        for (int length : new int[] {0, 63, 64, c.cubin().length / 2}) {
            Compilation cut = new Compilation("k.cu", "sm_90", Arrays.copyOf(c.cubin(), length), "", c.time(),
                    c.options());
            assertEquals(Optional.empty(), CubinResources.of(cut, List.of("plain")), "cut at " + length);
        }
    }

    private static Compilation verbose(String name, String source, String arch) {
        return nvrtc.compile(name, source, Prelude.headers(), arch, Map.of(), VERBOSE);
    }

    /** ptxas's report of each kernel, in the order asked. */
    private static List<KernelResources> reported(String log, List<String> kernels) {
        Map<String, KernelResources> byName = new HashMap<>();
        Matcher m = REPORT.matcher(log);
        while (m.find()) {
            byName.put(m.group(1), new KernelResources(m.group(1), Integer.parseInt(m.group(3)),
                    Integer.parseInt(m.group(2)), m.group(4) == null ? 0 : Integer.parseInt(m.group(4))));
        }
        assertTrue(byName.keySet().containsAll(kernels), "ptxas reported " + byName.keySet() + "\n" + log);
        return kernels.stream().map(byName::get).toList();
    }
}
