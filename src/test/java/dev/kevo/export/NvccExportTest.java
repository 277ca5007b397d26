package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.SanitizerRecords;
import dev.kevo.TestFiles;
import dev.kevo.data.Precision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cpp export of every seed (log_softmax's too), of the recorded champion, of the shipped sample's champion and of
 * an operator defined only in tests builds with nvcc as its README says: the launcher compiled for sm_90, and
 * example.cu, with its operator's reference compiled for the host, linked against it (a host program calling the C
 * API). No GPU needed.
 */
@NvccTest
class NvccExportTest {

    private static final Path CHAMPION = TestFiles.root().resolve("src/test/resources/champion/champion-default-h100.cu");
    /** The shipped sample campaign: its folder stands for its champion, exported as a user without a GPU would. */
    private static final Path SAMPLE = TestFiles.root().resolve("mutations/sample-h100");

    /** Each seed's export takes nvcc about 3 s on two cores: CI's second pass builds them all. */
    @Test
    @Exhaustive
    void everySeedAndTheChampionBuildWithNvcc(@TempDir Path tmp) throws Exception {
        List<Path> kernels = new ArrayList<>(TestFiles.seeds());
        assertFalse(kernels.isEmpty(), "no seeds found: the loop below would prove nothing");
        kernels.add(CHAMPION);
        kernels.add(SAMPLE);
        kernels.add(TestFiles.root().resolve("evaluator/baselines/log_softmax_two_pass.cu"));
        kernels.add(TestFiles.root().resolve("src/test/resources/operator/copy_rows.cu"));
        buildAll(kernels, tmp);
    }

    /**
     * CI's second pass builds the shipped sample's champion (a rendered genome of today's code: many kernels, several plans,
     * clusters and a cooperative grid) and cluster_rows.cu, the seed with thread-block clusters and a workspace: what
     * the generated launcher does beyond one plain launch, as it does the older recorded champion.
     */
    @Test
    @Exhaustive
    void theSampleChampionAndAClusterSeedBuildWithNvcc(@TempDir Path tmp) throws Exception {
        buildAll(List.of(SAMPLE, TestFiles.root().resolve("seeds/cluster_rows.cu")), tmp);
    }

    /**
     * CI's second pass builds a log_softmax export (kevo_log_softmax.cu and example.cu, which holds log_softmax's reference
     * compiled for the host) and the test operator's, whose tensors are src and dst: the C API, launcher and example
     * made from an operator's tensors, scalars and reference, not from softmax's. masked_softmax's export is built by
     * {@link #aMaskedSoftmaxExportRefusesAScaleKevoNeverJudged}, which then calls it.
     */
    @Test
    @Exhaustive
    void aLogSoftmaxSeedAndAnAddedOperatorBuildWithNvcc(@TempDir Path tmp) throws Exception {
        buildAll(List.of(TestFiles.root().resolve("seeds/log_softmax/online.cu"),
                TestFiles.root().resolve("src/test/resources/operator/copy_rows.cu")), tmp);
    }

    /**
     * CI's second pass builds a gradient's export: its C API of two row inputs, and an example.cu holding both the forward's
     * reference (which makes y) and the gradient's (which checks dx).
     */
    @Test
    @Exhaustive
    void aGradientsExportBuildsWithNvcc(@TempDir Path tmp) throws Exception {
        buildAll(List.of(TestFiles.root().resolve("seeds/softmax_backward/block_dot.cu")), tmp);
    }

    /**
     * CI's second pass builds a loss's export (nvcc seconds on two cores): its C API of logits, int64 labels, dx, a
     * float32 loss and g, and an example.cu that draws labels with ignored rows and checks dx and the loss against
     * kevo's reference of the row.
     */
    @Test
    @Exhaustive
    void aLossExportBuildsWithNvcc(@TempDir Path tmp) throws Exception {
        buildAll(List.of(TestFiles.root().resolve("seeds/cross_entropy/online.cu")), tmp);
    }

    /** The same in bf16, and the sum's (cross_entropy_sum: its loss and dx not divided by n): CI's second pass. */
    @Test
    @Exhaustive
    void aLossExportBuildsWithNvccInBf16AndTheSums(@TempDir Path tmp) throws Exception {
        buildInDtypes(tmp, "seeds/cross_entropy/held_rows.cu", "bf16");
        buildInDtypes(tmp.resolve("sum"), "seeds/cross_entropy_sum/held_rows.cu", "fp32");
    }

    /** The same in bf16 (CUDA's 16-bit types in both references' conversions): CI's second pass builds it. */
    @Test
    @Exhaustive
    void aGradientsExportBuildsWithNvccInBf16(@TempDir Path tmp) throws Exception {
        buildInDtypes(tmp, "seeds/log_softmax_backward/block_dot.cu", "bf16");
    }

    /**
     * CI's second pass builds a masked_softmax export as the others are built (its scale, lengths, mask and attention layout
     * in the C API and plan; its score code, the harness's per-row context and its reference compiled for the host in
     * example.cu), and it refuses a scale kevo never judged it with (0, below 0, not finite) in one line, before
     * anything touches a device: a host program calls the C API with null tensors, so this runs without a GPU. A
     * positive scale passes that check (and, with no GPU here, fails later, for another reason).
     */
    @Test
    @Exhaustive
    void aMaskedSoftmaxExportRefusesAScaleKevoNeverJudged(@TempDir Path tmp) throws Exception {
        Path kernel = TestFiles.root().resolve("seeds/masked_softmax/online.cu");
        buildAll(List.of(kernel), tmp);
        Path out = tmp.resolve("online");
        OperatorApi api = OperatorApi.of(dev.kevo.task.op.Operators.MASKED_SOFTMAX);
        String nulls = String.join(", ", java.util.Collections.nCopies(api.tensors().size(), "nullptr"));
        Files.writeString(out.resolve("probe.cu"), """
                #include <cmath>
                #include <cstdio>
                #include "%s"
                int main() {
                    const float scales[] = {0.0f, -0.125f, NAN, 0.125f};
                    for (float scale : scales) {
                        cudaError_t e = %s(%s, scale, 1, 1, 1, 64, 0, (cudaStream_t)0);
                        std::printf("%%g|%%d|%%s\\n", scale, (int)e, %s_last_error());
                    }
                    return 0;
                }
                """.formatted(api.header(), api.prefix(), nulls, api.prefix()));
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        Toolchain.succeed(out, 300, nvcc, "-std=c++17", "-arch=sm_90", "-o", "probe", "probe.cu", api.prefix() + ".o");
        List<String> lines = Toolchain.succeed(out, 60, out.resolve("probe").toString()).lines().toList();
        assertEquals(4, lines.size(), String.join("\n", lines));
        for (String refused : lines.subList(0, 3)) {
            assertTrue(refused.contains("|1|scale is ") && refused.endsWith(
                    "kevo judged the kernel with positive, finite values of it only"), refused);
        }
        assertFalse(lines.get(3).contains("judged the kernel with"), "0.125 is a scale kevo judges: " + lines.get(3));
    }

    private static void buildAll(List<Path> kernels, Path tmp) throws Exception {
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        for (Path kernel : kernels) {
            Path out = tmp.resolve(kernel.getFileName().toString().replace(".cu", ""));
            // A kernel file as kevo eval --at-scale --sanitize leaves it: a record and the judged cubin beside it.
            Path judged = Files.isDirectory(kernel) ? kernel : SanitizerRecords.cleanCopy(kernel,
                    Files.createDirectories(tmp.resolve("judged-" + kernels.indexOf(kernel))));
            ExportSource source = ExportSource.locate(judged);
            OperatorApi api = OperatorApi.of(source.file().op());
            ExportPackage.build(source, ExportTarget.CPP, "test", Instant.now()).writeTo(out);
            String object = api.prefix() + ".o";
            Toolchain.succeed(out, 300, nvcc, "-O3", "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings", "-c",
                    api.source(), "-o", object);
            Toolchain.succeed(out, 300, nvcc, "-O3", "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings", "-o",
                    "example", "example.cu", object);
            assertTrue(Files.isExecutable(out.resolve("example")), kernel + ": example linked");
            // No kernel is built here: they are the judged cubin's, which the launcher loads.
            String symbols = Toolchain.succeed(out, 60, "nm", object);
            for (String name : source.file().kernelNames()) {
                assertFalse(symbols.contains(" " + name + "\n"), kernel + ": nvcc built kernel " + name);
            }
            for (String function : List.of("", "_with_workspace", "_workspace_size", "_last_error")) {
                assertTrue(symbols.contains(" T " + api.prefix() + function + "\n"),
                        kernel + ": the C API defines " + api.prefix() + function);
            }
        }
        System.out.println("NvccExportTest: " + kernels.size() + " exports built with " + nvcc);
    }

    /** A kernel written for every dtype exports in each: the C API in CUDA's own 16-bit types, the example too. */
    @Test
    @Exhaustive
    void aSeedThatImplementsEveryDtypeBuildsInEach(@TempDir Path tmp) throws Exception {
        buildInDtypes(tmp, "seeds/online.cu", "bf16", "fp16", "bf16-fp32");
    }

    /** bf16 in, float32 out: both of CUDA's types in one C API, which CI's second pass builds. */
    @Test
    @Exhaustive
    void aSeedBuildsWithDifferentDtypesForXAndY(@TempDir Path tmp) throws Exception {
        buildInDtypes(tmp, "seeds/online.cu", "bf16-fp32");
    }

    /**
     * masked_softmax's example reads its mask in x's type through the harness's context and kv_lowest of that type:
     * in bf16 and fp16 both compile, -Werror. Each build takes nvcc seconds: CI's second pass runs it, as it
     * does the float32 masked package above.
     */
    @Test
    @Exhaustive
    void aMaskedSoftmaxSeedBuildsIn16BitTypes(@TempDir Path tmp) throws Exception {
        buildInDtypes(tmp, "seeds/masked_softmax/online.cu", "bf16", "fp16");
    }

    private static void buildInDtypes(Path tmp, String seed, String... dtypes) throws Exception {
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        for (String id : dtypes) {
            Path online = Files.copy(TestFiles.root().resolve(seed),
                    Files.createDirectories(tmp.resolve("judged-" + id)).resolve("online.cu"));
            SanitizerRecords.write(online, dev.kevo.data.Verdict.PASS, null, Precision.parse(id));
            Path out = tmp.resolve(id);
            ExportSource source = ExportSource.locate(online);
            OperatorApi api = OperatorApi.of(source.file().op());
            ExportPackage.build(source, ExportTarget.CPP, Optional.of(Precision.parse(id)), "test",
                    Instant.now()).writeTo(out);
            Toolchain.succeed(out, 300, nvcc, "-O3", "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings", "-c",
                    api.source(), "-o", api.prefix() + ".o");
            Toolchain.succeed(out, 300, nvcc, "-O3", "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings", "-o",
                    "example", "example.cu", api.prefix() + ".o");
            assertTrue(Files.isExecutable(out.resolve("example")), id + ": example linked");
        }
    }
}
