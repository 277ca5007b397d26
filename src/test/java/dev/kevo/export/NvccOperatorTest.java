package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.Exhaustive;
import dev.kevo.KevoException;
import dev.kevo.TestFiles;
import dev.kevo.data.Dtype;
import dev.kevo.data.JudgedBuild;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.ContractParser;
import dev.kevo.task.Expr;
import dev.kevo.task.KernelFile;
import dev.kevo.task.Knobs;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.ReferenceInputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What export makes of an operator's description, built with nvcc: the examples' reference, compiled for the host from
 * each operator's own CUDA, computes what kevo's CPU reference of that operator does; and the C API and launcher of an
 * operator with a mask tensor, which no evaluator judges yet, compile from its tensors alone.
 */
@NvccTest
class NvccOperatorTest {

    @Test
    @Exhaustive
    void theExamplesReferenceIsTheOperatorsOwn(@TempDir Path tmp) throws Exception {
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        int rows = 6;
        int cols = 37;
        float[] x = inputs(rows, cols);
        StringBuilder in = new StringBuilder(rows + " " + cols + "\n");
        for (float v : x) {
            in.append(v == Float.NEGATIVE_INFINITY ? "-inf" : Double.toHexString(v)).append('\n');
        }
        Files.writeString(tmp.resolve("x.txt"), in);
        for (Operator op : List.of(Operators.SOFTMAX, Operators.LOG_SOFTMAX, Operators.byId("copy"))) {
            Path dir = Files.createDirectories(tmp.resolve(op.id()));
            Files.writeString(dir.resolve("reference.cu"), """
                    #include <math.h>
                    #include <stdio.h>
                    #include <stdlib.h>
                    #define KEVO_INF INFINITY
                    REFERENCE
                    int main(int argc, char** argv) {
                        FILE* in = fopen(argv[1], "r");
                        int rows, cols;
                        char word[64];
                        if (!in || fscanf(in, "%d %d", &rows, &cols) != 2) return 2;
                        double* x = (double*)malloc(sizeof(double) * rows * cols);
                        for (int i = 0; i < rows * cols; i++) {
                            if (fscanf(in, "%63s", word) != 1) return 2;
                            x[i] = strtod(word, NULL);
                        }
                        for (int r = 0; r < rows; r++) {
                            double2 s = kv_stat_start();
                            for (int c = 0; c < cols; c++) s = kv_stat_add(s, x[r * cols + c]);
                            const double2 row = kv_row_prepare(s);
                            for (int c = 0; c < cols; c++) printf("%a\\n", kv_expected(x[r * cols + c], row));
                        }
                        return 0;
                    }
                    """.replace("REFERENCE", Examples.hostReference(op)));
            Toolchain.succeed(dir, 300, nvcc, "-std=c++17", "-Werror", "all-warnings", "-o", "reference",
                    "reference.cu");
            List<String> lines = Toolchain.succeed(dir, 60, dir.resolve("reference").toString(),
                    tmp.resolve("x.txt").toString()).lines().toList();
            double[] expected = op.reference(x, rows, cols);
            assertEquals(expected.length, lines.size(), op.id());
            for (int i = 0; i < expected.length; i++) {
                double got = parse(lines.get(i));
                String at = op.id() + " at row " + i / cols + " col " + i % cols + ": " + got + ", kevo's " + expected[i];
                if (Double.isInfinite(expected[i])) {
                    assertEquals(expected[i], got, at);
                } else {
                    assertTrue(Math.abs(got - expected[i]) <= 1e-12 * Math.max(1, Math.abs(expected[i])), at);
                }
            }
        }
    }

    /**
     * masked_softmax's example.cu checks with kevo's own score and reference compiled for the host, read through the
     * harness's per-row context: that code, cut from the generated example, computes what kevo's CPU reference does in
     * every mask kind (scale, causal from the bottom right, a length of 0, an additive mask with lowest and -inf
     * entries and a row masked throughout), masked entries exactly 0.
     */
    @Test
    void theMaskedExamplesScoreAndReferenceAreKevos(@TempDir Path tmp) throws Exception {
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        String example = Examples.cpp(OperatorApi.of(Operators.MASKED_SOFTMAX), Precision.FP32);
        String end = "// ---- end of kevo's reference";
        String reference = example.substring(example.indexOf("#ifndef KEVO_INF"), example.indexOf(end) + end.length());
        Files.writeString(tmp.resolve("reference.cu"), """
                #include <float.h>
                #include <math.h>
                #include <stdio.h>
                #include <stdlib.h>
                #include <string.h>
                REFERENCE
                int main(int argc, char** argv) {
                    FILE* in = fopen(argv[1], "r");
                    int batch, heads, queries, keys, kind;
                    float scale;
                    char word[64];
                    if (!in || fscanf(in, "%d %d %d %d %d %f", &batch, &heads, &queries, &keys, &kind, &scale) != 6) {
                        return 2;
                    }
                    const int rows = batch * heads * queries;
                    int* lengths = (int*)malloc(sizeof(int) * batch);
                    float* mask = (float*)malloc(sizeof(float) * batch * queries * keys);
                    float* x = (float*)malloc(sizeof(float) * rows * keys);
                    for (int i = 0; i < batch; i++) if (fscanf(in, "%d", &lengths[i]) != 1) return 2;
                    for (int i = 0; i < batch * queries * keys + rows * keys; i++) {
                        if (fscanf(in, "%63s", word) != 1) return 2;
                        const float v = strcmp(word, "-inf") == 0 ? -INFINITY : strtof(word, NULL);
                        if (i < batch * queries * keys) mask[i] = v; else x[i - batch * queries * keys] = v;
                    }
                    const KvAttention a = {batch, heads, queries, keys, kind, scale, lengths, mask};
                    for (int r = 0; r < rows; r++) {
                        const KvRowAt at = kv_row_at(a, r);
                        double2 s = kv_stat_start();
                        for (int c = 0; c < keys; c++) s = kv_stat_add(s, kv_score(a, at, c, x[r * keys + c]));
                        const double2 row = kv_row_prepare(s);
                        for (int c = 0; c < keys; c++) printf("%a\\n", kv_expected(kv_score(a, at, c, x[r * keys + c]), row));
                    }
                    return 0;
                }
                """.replace("REFERENCE", reference));
        Toolchain.succeed(tmp, 300, nvcc, "-std=c++17", "-Werror", "all-warnings", "-o", "reference", "reference.cu");
        Random random = new Random(11);
        int batch = 3;
        int heads = 2;
        int queries = 5;
        int keys = 7;
        for (MaskKind kind : MaskKind.values()) {
            Shape shape = Shape.attention(batch, heads, queries, keys, kind);
            int[] lengths = {4, 0, keys};
            float[] mask = new float[batch * queries * keys];
            for (int i = 0; i < mask.length; i++) {
                int row = i / keys;
                mask[i] = row == 2 ? -Float.MAX_VALUE : i % 5 == 0 ? Float.NEGATIVE_INFINITY
                        : i % 3 == 0 ? -Float.MAX_VALUE : (float) random.nextGaussian();
            }
            float[] x = new float[shape.rows() * keys];
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (random.nextGaussian() * 40);
            }
            float scale = 0.125f;
            StringBuilder in = new StringBuilder(batch + " " + heads + " " + queries + " " + keys + " "
                    + kind.ordinal() + " " + Float.toHexString(scale) + "\n");
            for (int l : lengths) {
                in.append(l).append('\n');
            }
            for (float[] values : List.of(mask, x)) {
                for (float v : values) {
                    in.append(v == Float.NEGATIVE_INFINITY ? "-inf" : Float.toHexString(v)).append('\n');
                }
            }
            Files.writeString(tmp.resolve("in.txt"), in);
            List<String> lines = Toolchain.succeed(tmp, 60, tmp.resolve("reference").toString(),
                    tmp.resolve("in.txt").toString()).lines().toList();
            double[] expected = Operators.MASKED_SOFTMAX.reference(new ReferenceInputs(shape, Dtype.FP32, x, lengths,
                    mask, scale));
            assertEquals(expected.length, lines.size(), kind.id());
            int zeros = 0;
            for (int i = 0; i < expected.length; i++) {
                double got = parse(lines.get(i));
                String at = kind.id() + " at row " + i / keys + " col " + i % keys + ": " + got + ", kevo's "
                        + expected[i];
                if (expected[i] == 0) {
                    assertEquals(0.0, got, at);
                    zeros++;
                } else {
                    assertTrue(Math.abs(got - expected[i]) <= 1e-12 * Math.max(1, Math.abs(expected[i])), at);
                }
            }
            // every kind but none masks some entries here, and the example must hold them to exactly 0
            assertTrue(kind == MaskKind.NONE ? zeros == 0 : zeros > 0, kind.id() + ": " + zeros + " zeros");
        }
    }

    /** Rows as kevo's input cases stress them: spread, masked with -inf, overflowing exp, lowest-masked, constant. */
    private static float[] inputs(int rows, int cols) {
        Random random = new Random(42);
        float[] x = new float[rows * cols];
        for (int c = 0; c < cols; c++) {
            x[c] = (float) (random.nextGaussian() * 4);
            x[cols + c] = c % 3 == 1 ? (float) (random.nextGaussian() * 4) : Float.NEGATIVE_INFINITY;
            x[2 * cols + c] = 500 + random.nextFloat() * 500;
            x[3 * cols + c] = c == 5 ? 2.5f : -Float.MAX_VALUE;
            x[4 * cols + c] = -Float.MAX_VALUE;
            x[5 * cols + c] = 1.25f;
        }
        return x;
    }

    private static double parse(String text) {
        return switch (text.strip()) {
            case "-inf" -> Double.NEGATIVE_INFINITY;
            case "inf" -> Double.POSITIVE_INFINITY;
            case "nan", "-nan" -> Double.NaN;
            default -> Double.parseDouble(text.strip());
        };
    }

    /**
     * An operator of two inputs (x and a mask) and one output: its header, plan and launcher are made from its
     * tensors and compile as they are; a launch passes each tensor by its slot. Its examples, which take one input
     * and one output as kevo's evaluator does, are refused in one line.
     */
    @Test
    @Exhaustive
    void aMaskedOperatorsApiAndLauncherCompileFromItsTensors(@TempDir Path tmp) throws Exception {
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        TestOperator masked = TestOperator.masked();
        KernelFile base = ContractParser.read(TestFiles.root().resolve("seeds/online.cu"));
        List<KernelFile.Arg> args = new ArrayList<>();
        for (String buffer : List.of("mask", "x", "ws", "y")) {
            args.add(new KernelFile.Arg.Buffer(buffer));
        }
        args.add(new KernelFile.Arg.Int(Expr.parse("cols")));
        KernelFile.Launch launch = new KernelFile.Launch("masked_rows", Expr.parse("rows"), Expr.parse("256"),
                Expr.parse("0"), false, Expr.parse("1"), args);
        KernelFile file = new KernelFile("masked.cu", null, base.source(), "a masked operator", Expr.parse("rows * 8"),
                List.of(new KernelFile.Plan(Expr.parse("true"), List.of(launch))), Knobs.NONE,
                List.of(Precision.BF16_FP32), masked);
        OperatorApi api = OperatorApi.of(masked);
        ApiText text = new ApiText(api, Precision.BF16_FP32);
        PlanEnvelope envelope = PlanEnvelope.of(1, List.of(), null);
        Files.writeString(tmp.resolve(api.header()), Template.fill("header.h", text.slots()));
        String plan = PlanHeader.render(file, "// test\n", envelope);
        Files.writeString(tmp.resolve(api.planHeader()), plan);
        Files.writeString(tmp.resolve(api.cubinHeader()), CubinHeader.render(api, new JudgedBuild("sm_90", "NVRTC",
                List.of(), "0"), new byte[] {1, 2, 3}, "// test\n"));
        Files.writeString(tmp.resolve(api.source()), ExportPackage.launcher(api, text, "// test\n", "1000"));
        Toolchain.succeed(tmp, 300, nvcc, "-std=c++17", "-arch=sm_90", "-Werror", "all-warnings", "-c",
                api.source(), "-o", "masked.o");
        String header = Files.readString(tmp.resolve(api.header()));
        assertTrue(header.contains("cudaError_t kevo_masked(const __nv_bfloat16* x, const __nv_bfloat16* mask, "
                + "float* y, int rows, int cols, cudaStream_t stream);"), header);
        // mask, x, ws, y: slots 1, 0, 3, 2
        for (String kind : List.of("arg_kind[0] = 1;  // mask", "arg_kind[1] = 0;  // x", "arg_kind[2] = 3;  // ws",
                "arg_kind[3] = 2;  // y", "arg_kind[4] = KEVO_MASKED_ARG_INT;")) {
            assertTrue(plan.contains(kind), kind + " in\n" + plan);
        }
        KevoException e = assertThrows(KevoException.class, () -> Examples.cpp(api, Precision.FP32));
        assertEquals("operator masked: kevo export's examples take one input and one output (the row-wise family kevo "
                + "judges), not 2 and 1", e.getMessage());
        // The binding needs torch's headers, which kevo's build machines lack: its text is checked here.
        String binding = Template.fill("torch_binding.cpp", with(text.slots(), Map.of("DOC", "test",
                "MAX_ELEMENTS", "1000")));
        assertTrue(binding.contains("torch::Tensor kevo_masked_torch(const torch::Tensor& x, const torch::Tensor& mask, "
                + "int64_t dim) {\n    const kevo_masked_outputs outputs = kevo_masked_run({x, mask}, {}, \"none\", dim);"),
                binding);
    }

    private static Map<String, String> with(Map<String, String> a, Map<String, String> b) {
        Map<String, String> all = new java.util.LinkedHashMap<>(a);
        all.putAll(b);
        return all;
    }
}
