package dev.kevo.task;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kevo.TestFiles;
import dev.kevo.data.Precision;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** x's and y's parameter types against the dtype judged, read from the source with no compiler. */
class ParameterTypesTest {

    private static KernelFile file(String args, String signature) {
        return ContractParser.parse("k.cu", null, "/*@kevo {\"dtype\": [\"fp32\", \"bf16\", \"fp16\", \"bf16-fp32\"], "
                + "\"plans\": [{\"launches\": [{\"kernel\": \"k\", \"grid\": \"rows\", \"block\": 32, \"args\": "
                + args + "}]}]} */\n#include \"kevo.h\"\n// k(double* x) in a comment is not the kernel\n"
                + "__device__ void k_helper(float* x) { }\n" + signature + " { }\n");
    }

    private static Optional<String> check(String args, String signature, Precision dtype) {
        return ParameterTypes.violation(file(args, signature), dtype);
    }

    @Test
    void aScalarTypeOfAnotherDtypeIsNamedWithItsLine() {
        String xy = "[\"x\", \"y\", \"cols\"]";
        assertEquals(Optional.of("line 5: kernel k takes x as const float*, but dtype bf16 stores x as kevo_bf16 "
                + "(declare it KEVO_X*)"), check(xy, "extern \"C\" __global__ void k(const float* x, KEVO_Y* y, int c)",
                Precision.BF16));
        assertEquals(Optional.of("line 5: kernel k takes y as kevo_bf16*, but dtype bf16-fp32 stores y as float "
                + "(declare it KEVO_Y*)"), check(xy, "extern \"C\" __global__ void k(const KEVO_X* x, kevo_bf16* y, "
                + "int c)", Precision.BF16_FP32));
        assertEquals(Optional.of("line 5: kernel k takes y as KEVO_X*, but dtype bf16-fp32 stores y as float "
                + "(declare it KEVO_Y*)"), check(xy, "extern \"C\" __global__ void k(const KEVO_X* x, KEVO_X* y, int c)",
                Precision.BF16_FP32));
        assertEquals("line 5: kernel k takes x as double*, but dtype fp32 stores x as float (declare it KEVO_X*)",
                check(xy, "extern \"C\" __global__ void k(double* x, float* y, int c)", Precision.FP32).orElseThrow());
    }

    @Test
    void theArgumentsOrderDecidesWhichParameterIsX() {
        String swapped = "[\"cols\", \"y\", \"x\"]";
        String signature = "extern \"C\" __global__ void __launch_bounds__(32) k(int c, kevo_half* __restrict__ y,\n"
                + "    const float* x)";
        assertEquals("line 6: kernel k takes x as const float*, but dtype fp16 stores x as kevo_half "
                + "(declare it KEVO_X*)", check(swapped, signature, Precision.FP16).orElseThrow());
        assertEquals(Optional.empty(), check(swapped, "extern \"C\" __global__ void k(int c, KEVO_Y* y, const KEVO_X* x)",
                Precision.FP16));
    }

    /** A vector type, void* or a type of the file's own may be a raw view of any dtype: left to the GPU's checks. */
    @Test
    void typesKevoDoesNotKnowAreNotJudged() {
        String xyws = "[\"x\", \"y\", \"ws\", \"cols\"]";
        for (String signature : List.of("extern \"C\" __global__ void k(const float4* x, uint4* y, float* ws, int c)",
                "extern \"C\" __global__ void k(const void* x, void* y, double* ws, int c)",
                "extern \"C\" __global__ void k(const T* x, T* y, float* ws, int c)")) {
            assertEquals(Optional.empty(), check(xyws, signature, Precision.BF16), signature);
        }
    }

    @Test
    void everyShippedKernelPassesInEveryDtypeItDeclares() throws IOException {
        Path root = TestFiles.root();
        try (Stream<Path> files = Stream.of("seeds", "evaluator/baselines", "evaluator/adversarial")
                .flatMap(d -> list(root.resolve(d)))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".cu")).toList()) {
                if (Files.readString(f).contains("// @expect contract-error")) {
                    continue;  // the corpus's files that are to be refused: broken headers, labels read as int32
                }
                KernelFile file = ContractParser.read(f);
                for (Precision dtype : file.dtypes()) {
                    assertEquals(Optional.empty(), ParameterTypes.violation(file, dtype), f + " in " + dtype);
                }
            }
        }
    }

    private static Stream<Path> list(Path dir) {
        try {
            return Files.list(dir).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** masked_softmax's lengths are int32 and its mask in x's type, whatever the dtype. */
    @Test
    void theMasksTensorsHaveTheirOwnTypes() {
        String args = "[\"x\", \"lengths\", \"mask\", \"y\", \"scale\"]";
        java.util.function.BiFunction<String, Precision, Optional<String>> masked = (signature, dtype) ->
                ParameterTypes.violation(ContractParser.parse("k.cu", null, "/*@kevo {\"op\": \"masked_softmax\", "
                        + "\"dtype\": [\"fp32\", \"bf16\"], \"plans\": [{\"launches\": [{\"kernel\": \"k\", "
                        + "\"grid\": \"rows\", \"block\": 32, \"args\": " + args + "}]}]} */\n#include \"kevo.h\"\n"
                        + signature + " { }\n"), dtype);
        assertEquals(Optional.empty(), masked.apply("extern \"C\" __global__ void k(const KEVO_X* x, const int* l, "
                + "const KEVO_X* m, KEVO_Y* y, float s)", Precision.BF16));
        assertEquals(Optional.of("line 3: kernel k takes lengths as const float*, but dtype fp32 stores lengths as int "
                + "(declare it int*)"), masked.apply("extern \"C\" __global__ void k(const float* x, const float* l, "
                + "const float* m, float* y, float s)", Precision.FP32));
        assertEquals(Optional.of("line 3: kernel k takes mask as const float*, but dtype bf16 stores mask as kevo_bf16 "
                + "(declare it KEVO_X*)"), masked.apply("extern \"C\" __global__ void k(const KEVO_X* x, const int* l, "
                + "const float* m, KEVO_Y* y, float s)", Precision.BF16));
    }
}
