package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.SanitizerRecords;
import dev.kevo.TestFiles;
import dev.kevo.data.Dtype;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.data.Verdict;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.ReferenceInputs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The torch packages kevo writes, masked_softmax's above all, checked without a GPU: the binding's text in each dtype;
 * with Python, that example.py and setup.py compile; with torch (a CPU build is enough), that example.py's reference
 * is kevo's own reference of masked_softmax in every mask kind; with nvcc and torch's headers, that each binding
 * compiles as torch's cpp_extension compiles it. What only a GPU runs (the op itself) is bench/export-torch.sh's.
 */
class TorchExportTest {

    /** The kernels exported here, each with a dtype it implements. */
    private static final List<String[]> PACKAGES = List.of(
            new String[]{"seeds/online.cu", "fp32"},
            new String[]{"seeds/log_softmax/online.cu", "bf16"},
            new String[]{"seeds/masked_softmax/online.cu", "fp32"},
            new String[]{"seeds/masked_softmax/online.cu", "bf16"},
            new String[]{"seeds/masked_softmax/online.cu", "fp16"});

    /** The torch package of {@code kernel} in {@code dtype}, as kevo eval --sanitize would leave the file judged. */
    private static Path export(Path tmp, String kernel, String dtype) throws Exception {
        String name = kernel.replace('/', '-').replace(".cu", "") + "-" + dtype;
        Path file = Files.copy(TestFiles.root().resolve(kernel),
                Files.createDirectories(tmp.resolve("judged-" + name)).resolve("k.cu"));
        SanitizerRecords.write(file, Verdict.PASS, null, Precision.parse(dtype));
        Path out = tmp.resolve(name);
        ExportPackage.build(ExportSource.locate(file), ExportTarget.TORCH, Optional.of(Precision.parse(dtype)), "test",
                Instant.now()).writeTo(out);
        return out;
    }

    /**
     * In every dtype, the masked binding types x and mask as the dtype exported and lengths as int32 whatever it is,
     * and no template slot is left; softmax's keeps its plain signature.
     */
    @Test
    void eachBindingTypesItsTensorsInTheDtypeExported(@TempDir Path tmp) throws Exception {
        for (String[] p : PACKAGES) {
            Path out = export(tmp, p[0], p[1]);
            String op = Files.readString(out.resolve(ExportPackage.PROVENANCE)).replaceAll("(?s).*\"op\" : \"(\\w+)\".*",
                    "$1");
            String binding = Files.readString(out.resolve("kevo_" + op + "_torch.cpp"));
            String x = ExportTypes.torch(Precision.parse(p[1]).x());
            assertFalse(binding.contains("@@"), p[0] + " " + p[1]);
            assertTrue(binding.contains("{\"x\", " + x + ", false, 0, 0xf}"), binding);
            if (op.equals("masked_softmax")) {
                assertTrue(binding.contains("{\"lengths\", torch::kInt32, false, 1, 0x4},\n    {\"mask\", " + x
                        + ", false, 2, 0x8}"), binding);
                assertTrue(binding.contains("static constexpr bool kevo_masked_softmax_attention = true;"), binding);
            } else {
                assertTrue(binding.contains("PyTorch op, " + op + "(x, dim=-1). Generated"), binding);
                assertTrue(binding.contains("pybind11::arg(\"x\"), pybind11::arg(\"dim\") = -1);"), binding);
                assertTrue(binding.contains("static constexpr bool kevo_" + op + "_attention = false;"), binding);
            }
        }
    }

    /** Every package's Python compiles: example.py (with masked_softmax's reference and input helpers) and setup.py. */
    @Test
    @PythonTest
    void theGeneratedPythonCompiles(@TempDir Path tmp) throws Exception {
        String python = Toolchain.python().orElseThrow().toString();
        for (String[] p : PACKAGES) {
            Path out = export(tmp, p[0], p[1]);
            for (String f : List.of("example.py", "setup.py")) {
                Toolchain.succeed(out, 60, python, "-m", "py_compile", f);
            }
        }
    }

    /** The training package of a forward and its gradient (their block-per-row seeds), judged as export wants them. */
    private static Path training(Path tmp, String forward, String backward, String dtype) throws Exception {
        Path f = Files.copy(TestFiles.root().resolve(forward), Files.createDirectories(tmp.resolve("judged-f")).resolve("f.cu"));
        Path b = Files.copy(TestFiles.root().resolve(backward), Files.createDirectories(tmp.resolve("judged-b")).resolve("b.cu"));
        SanitizerRecords.write(f, Verdict.PASS, null, Precision.parse(dtype));
        SanitizerRecords.write(b, Verdict.PASS, null, Precision.parse(dtype));
        Optional<Precision> d = Optional.of(Precision.parse(dtype));
        Path out = tmp.resolve("training");
        TrainingPackage.join(ExportPackage.build(ExportSource.locate(f), ExportTarget.TORCH, d, "test", Instant.now()),
                ExportPackage.build(ExportSource.locate(b), ExportTarget.TORCH, d, "test", Instant.now()), "test")
                .writeTo(out);
        return out;
    }

    /**
     * A loss's torch package (cross_entropy): the op takes x, int64 labels of one a row and g, and returns dx and a
     * float32 loss of one element (0-dimensional); the package adds the loss function with its backward, and its
     * README and Python say so; every Python file compiles.
     */
    @Test
    @PythonTest
    void aLossPackageTakesLabelsAndReturnsDxAndTheLoss(@TempDir Path tmp) throws Exception {
        Path out = export(tmp, "seeds/cross_entropy/held_rows.cu", "bf16");
        String binding = Files.readString(out.resolve("kevo_cross_entropy_torch.cpp"));
        assertFalse(binding.contains("@@"), binding);
        assertTrue(binding.contains("{\"labels\", torch::kInt64, false, 3, 0xf},\n    {\"dx\", torch::kBFloat16, true, "
                + "0, 0xf},\n    {\"loss\", torch::kFloat32, true, 4, 0xf}"), binding);
        assertTrue(binding.contains("pybind11::arg(\"x\"), pybind11::arg(\"labels\"), pybind11::arg(\"g\"), "
                + "pybind11::arg(\"dim\") = -1);"), binding);
        assertTrue(binding.contains("const torch::Tensor& x, const torch::Tensor& labels, double g, int64_t dim"),
                binding);
        String readme = Files.readString(out.resolve("README.md"));
        assertTrue(readme.contains("kevo_cross_entropy_loss.loss_function(kevo_cross_entropy)")
                && readme.contains("torch.bfloat16 CUDA logits"), readme);
        String python = Toolchain.python().orElseThrow().toString();
        for (String f : List.of("example.py", "setup.py", "kevo_cross_entropy_loss.py")) {
            Toolchain.succeed(out, 60, python, "-m", "py_compile", f);
        }
        assertTrue(Files.readString(out.resolve("example.py")).contains("reduction=\"mean\""));
        // The sum's package: its op and loss function under its own name, checked against torch's sum.
        Path sum = export(tmp, "seeds/cross_entropy_sum/held_rows.cu", "fp32");
        for (String f : List.of("example.py", "setup.py", "kevo_cross_entropy_sum_loss.py")) {
            Toolchain.succeed(sum, 60, python, "-m", "py_compile", f);
        }
        assertTrue(Files.readString(sum.resolve("example.py")).contains("reduction=\"sum\""));
        assertTrue(Files.readString(sum.resolve("README.md")).contains("(0 when every row is ignored"));
    }

    /**
     * The loss module differentiates as torch's cross_entropy does: with the extension stood in for by torch's own loss
     * and gradient (same name, same arguments: dx is g times the gradient of the mean loss), gradcheck passes on the
     * loss function in float64 on the CPU, ignored rows included, an incoming gradient of 3 triples x.grad and one of 1
     * leaves it torch's. A backward that dropped the incoming gradient, or ran the op with another g, would fail.
     */
    @Test
    @TorchTest
    void theLossModulesBackwardIsTorchsGradient(@TempDir Path tmp) throws Exception {
        String python = Toolchain.torch().orElseThrow().python().toString();
        Path out = export(tmp, "seeds/cross_entropy/online.cu", "fp32");
        Files.writeString(out.resolve("check.py"), """
                import torch
                import torch.nn.functional as F
                import kevo_cross_entropy_loss


                class StandIn:
                    @staticmethod
                    def cross_entropy(x, labels, g, dim=-1):
                        with torch.enable_grad():  # a Function's forward runs without it
                            t = x.detach().requires_grad_()
                            loss = F.cross_entropy(t, labels, ignore_index=-100)
                            loss.backward()
                        return t.grad * g, loss.detach()  # kevo's is float32: float64 for gradcheck's differences


                loss_fn = kevo_cross_entropy_loss.loss_function(StandIn)
                labels = torch.tensor([3, -100, 0, 36, 5, -100])
                x = (torch.randn(6, 37, dtype=torch.float64) * 3).requires_grad_()
                assert torch.autograd.gradcheck(lambda t: loss_fn(t, labels), (x,))
                (loss_fn(x, labels) * 3).backward()
                ref = x.detach().requires_grad_()
                (F.cross_entropy(ref, labels, ignore_index=-100) * 3).backward()
                assert torch.allclose(x.grad, ref.grad), (x.grad, ref.grad)
                assert (x.grad[1] == 0).all()
                x.grad = None
                loss_fn(x, labels).backward()  # an incoming 1: dx as the op gave it
                ref.grad = None
                F.cross_entropy(ref, labels, ignore_index=-100).backward()
                assert torch.allclose(x.grad, ref.grad), (x.grad, ref.grad)
                print("ok", x.grad.shape[1])
                """);
        assertTrue(Toolchain.succeed(out, 120, python, "check.py").contains("ok 37"));
    }

    /** A training package's Python compiles: both setup.py's extensions, the autograd module and train_check.py. */
    @Test
    @PythonTest
    void aTrainingPackagesPythonCompiles(@TempDir Path tmp) throws Exception {
        String python = Toolchain.python().orElseThrow().toString();
        Path out = training(tmp, "seeds/log_softmax/online.cu", "seeds/log_softmax_backward/block_dot.cu", "bf16");
        for (String f : List.of("setup.py", "example.py", "kevo_log_softmax_autograd.py", "train_check.py")) {
            Toolchain.succeed(out, 60, python, "-m", "py_compile", f);
        }
    }

    /**
     * The autograd module wires kevo's two ops as torch's own softmax is differentiated: with the two extensions stood
     * in for by torch's forward and backward functions (same names, same arguments), torch.autograd.gradcheck passes on
     * it in float64 on the CPU, for softmax and log_softmax. A Function that saved x instead of y, passed dy before y,
     * or left the gradient of dim out would fail it.
     */
    @Test
    @TorchTest
    void theAutogradModuleJoinsForwardAndBackwardAsTorchDoes(@TempDir Path tmp) throws Exception {
        String python = Toolchain.torch().orElseThrow().python().toString();
        for (String op : List.of("softmax", "log_softmax")) {
            Path dir = Files.createDirectories(tmp.resolve(op));
            Path out = training(dir, op.equals("softmax") ? "seeds/online.cu" : "seeds/log_softmax/online.cu",
                    "seeds/" + op + "_backward/block_dot.cu", "fp32");
            Files.writeString(out.resolve("kevo_" + op + ".py"), "import torch\n\ndef " + op
                    + "(x, dim=-1):\n    return torch." + op + "(x, dim=dim)\n");
            Files.writeString(out.resolve("kevo_" + op + "_backward.py"), "import torch\n\ndef " + op
                    + "_backward(y, dy, dim=-1):\n    return torch._" + op + "_backward_data(dy, y, dim, y.dtype)\n");
            Files.writeString(out.resolve("check.py"), """
                    import torch
                    from kevo_OP_autograd import OP
                    x = (torch.randn(6, 37, dtype=torch.float64) * 3).requires_grad_()
                    assert torch.autograd.gradcheck(lambda t: OP(t), (x,))
                    y = OP(x)
                    (y * torch.randn_like(y)).sum().backward()
                    print("ok", x.grad.shape[1])
                    """.replace("OP", op));
            assertTrue(Toolchain.succeed(out, 120, python, "check.py").contains("ok 37"), op);
        }
    }

    /**
     * example.py's reference of masked_softmax, torch.softmax of the scaled scores with masked keys at -inf and fully
     * masked rows 0, equals kevo's own CPU reference in every mask kind, in float32 and bf16: masked entries, x's -inf
     * entries and fully masked rows (a length of 0, a mask row of lowest values, more queries than keys) exactly 0,
     * the rest within what kevo's rounding of a score to float32 moves a probability. Run on torch's CPU.
     */
    @Test
    @TorchTest
    void theExamplesMaskedReferenceIsKevosInEveryMaskKind(@TempDir Path tmp) throws Exception {
        Path out = export(tmp, "seeds/masked_softmax/online.cu", "fp32");
        String example = Files.readString(out.resolve("example.py"));
        int start = example.indexOf("def reference(");
        int end = example.indexOf("\n\n\nfor ", start);
        assertTrue(start > 0 && end > start, example);
        Path script = Files.writeString(tmp.resolve("reference.py"), """
                import sys
                import torch

                DEFINITION
                out = open(sys.argv[2], "w")
                lines = iter(open(sys.argv[1]).read().splitlines())
                for head in lines:
                    batch, heads, queries, keys, kind, scale, dtype, mask4 = head.split()
                    batch, heads, queries, keys = int(batch), int(heads), int(queries), int(keys)
                    dtype = getattr(torch, dtype)
                    x = torch.tensor([float(v) for v in next(lines).split()], dtype=torch.float32)
                    x = x.view(batch, heads, queries, keys).to(dtype)
                    lengths = next(lines).split()
                    lengths = torch.tensor([int(v) for v in lengths], dtype=torch.int32) if lengths else None
                    mask = next(lines).split()
                    if mask:
                        mask = torch.tensor([float(v) for v in mask], dtype=torch.float32).to(dtype)
                        mask = mask.view(batch, 1, queries, keys) if mask4 == "1" else mask.view(batch, queries, keys)
                    else:
                        mask = None
                    y = reference(x, float(scale), kind, lengths, mask)
                    out.write(" ".join(repr(v) for v in y.flatten().tolist()) + "\\n")
                """.replace("DEFINITION", example.substring(start, end)));
        Random random = new Random(43);
        List<ReferenceInputs> cases = new ArrayList<>();
        StringBuilder input = new StringBuilder();
        for (Dtype dtype : List.of(Dtype.FP32, Dtype.BF16)) {
            for (MaskKind kind : MaskKind.values()) {
                for (int[] s : List.of(new int[]{2, 3, 5, 7}, new int[]{1, 2, 6, 4}, new int[]{3, 1, 1, 33})) {
                    ReferenceInputs in = maskedCase(random, dtype, Shape.attention(s[0], s[1], s[2], s[3], kind));
                    cases.add(in);
                    input.append(s[0]).append(' ').append(s[1]).append(' ').append(s[2]).append(' ').append(s[3])
                            .append(' ').append(kind.id()).append(' ').append(in.scale()).append(' ')
                            .append(dtype == Dtype.FP32 ? "float32" : "bfloat16").append(' ')
                            .append(cases.size() % 2).append('\n');
                    input.append(floats(in.x())).append('\n');
                    input.append(in.lengths() == null ? "" : String.join(" ", java.util.Arrays.stream(in.lengths())
                            .mapToObj(Integer::toString).toList())).append('\n');
                    input.append(in.mask() == null ? "" : floats(in.mask())).append('\n');
                }
            }
        }
        Path inputs = Files.writeString(tmp.resolve("inputs.txt"), input);
        Path answers = tmp.resolve("answers.txt");
        Toolchain.succeed(tmp, 300, Toolchain.torch().orElseThrow().python().toString(), script.toString(),
                inputs.toString(), answers.toString());
        List<String> lines = Files.readAllLines(answers);
        assertEquals(cases.size(), lines.size());
        int zeros = 0;
        for (int c = 0; c < cases.size(); c++) {
            ReferenceInputs in = cases.get(c);
            double[] kevo = Operators.MASKED_SOFTMAX.reference(in);
            String[] torch = lines.get(c).split(" ");
            assertEquals(kevo.length, torch.length);
            for (int i = 0; i < kevo.length; i++) {
                double t = Double.parseDouble(torch[i]);
                String at = in.shape() + " in " + in.xType() + ", element " + i + ": kevo " + kevo[i] + ", torch " + t;
                if (kevo[i] == 0) {
                    zeros++;
                    assertEquals(0.0, t, at);
                } else {
                    // kevo rounds each score to float32 (as a kernel's fma does); this is float64 throughout
                    assertTrue(Math.abs(t - kevo[i]) <= 1e-12 + 1e-5 * Math.abs(kevo[i]), at);
                }
            }
        }
        assertTrue(zeros > 100, "masked entries and fully masked rows were checked: " + zeros);
    }

    /**
     * A case of masked_softmax as kevo's cases draw it at its edges, every value held in x's type: x spread with a few
     * -inf entries and one row -inf throughout; lengths from 0 to keys; a mask of biases with lowest and -inf entries
     * and one row of lowest values; the scale one of the operator's, or 1.
     */
    private static ReferenceInputs maskedCase(Random random, Dtype dtype, Shape shape) {
        int keys = (int) shape.cols();
        float[] x = new float[(int) shape.elements()];
        for (int i = 0; i < x.length; i++) {
            x[i] = i / keys == 1 || random.nextInt(20) == 0 ? Float.NEGATIVE_INFINITY
                    : held(dtype, (float) (random.nextGaussian() * 4));
        }
        ReferenceInputs plain = new ReferenceInputs(shape, dtype, x, null, null, 1f);
        int[] lengths = null;
        float[] mask = null;
        if (shape.mask() == MaskKind.PADDING) {
            lengths = new int[(int) shape.batch()];
            for (int b = 0; b < lengths.length; b++) {
                lengths[b] = b == 0 ? 0 : b == 1 ? keys : random.nextInt(keys + 1);
            }
        } else if (shape.mask() == MaskKind.ADDITIVE) {
            mask = new float[(int) (shape.batch() * shape.queries() * keys)];
            for (int i = 0; i < mask.length; i++) {
                int draw = random.nextInt(10);
                mask[i] = i / keys == 0 || draw < 3 ? plain.lowest() : draw == 3 ? Float.NEGATIVE_INFINITY
                        : held(dtype, (float) (random.nextGaussian() * 2));
            }
        }
        List<Float> scales = new ArrayList<>(Operators.MASKED_SOFTMAX.scalars().getFirst().values());
        scales.add(1f);
        return new ReferenceInputs(shape, dtype, x, lengths, mask, scales.get(random.nextInt(scales.size())));
    }

    /** v as x's type holds it: bf16 keeps a float's top 16 bits (rounded to nearest even). */
    private static float held(Dtype dtype, float v) {
        if (dtype == Dtype.FP32) {
            return v;
        }
        int bits = Float.floatToRawIntBits(v);
        return Float.intBitsToFloat((bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000);
    }

    private static String floats(float[] values) {
        StringBuilder out = new StringBuilder();
        for (float v : values) {
            out.append(out.isEmpty() ? "" : " ").append(v);
        }
        return out.toString();
    }

    /**
     * Each package's binding compiles with nvcc against torch's headers, as torch's cpp_extension compiles it (its C++
     * standard, TORCH_EXTENSION_NAME, torch's include folders): warnings in the generated file are errors. Where the
     * CUDA toolkit lacks the math libraries' headers that torch's CUDA headers include (cusparse.h: a toolkit of the
     * compiler alone), it says so and skips.
     */
    @Test
    @NvccTest
    @TorchTest
    void eachBindingCompilesAgainstTorchsHeaders(@TempDir Path tmp) throws Exception {
        String nvcc = Toolchain.nvcc().orElseThrow().toString();
        Toolchain.Torch torch = Toolchain.torch().orElseThrow();
        for (String[] p : PACKAGES.subList(0, 4)) {
            Path out = export(tmp, p[0], p[1]);
            Path binding = Toolchain.files(out, "_torch.cpp").getFirst();
            String module = binding.getFileName().toString().replace("_torch.cpp", "");
            List<String> command = new ArrayList<>(List.of(nvcc, "-std=" + torch.std(), "-O1", "-c",
                    binding.getFileName().toString(), "-o", module + "_torch.o", "-DTORCH_EXTENSION_NAME=" + module,
                    "-DTORCH_API_INCLUDE_EXTENSION_H", "-D_GLIBCXX_USE_CXX11_ABI=" + torch.cxx11Abi(),
                    "-Xcompiler", "-fPIC,-Wall,-Wextra,-Werror"));
            for (String include : torch.includes()) {
                command.addAll(List.of("-isystem", include));
            }
            command.addAll(List.of("-isystem", torch.pythonInclude()));
            Toolchain.Result r = Toolchain.run(out, 600, command);
            if (r.code() != 0 && r.output().matches("(?s).*\\b(cusparse|cublas_v2|cublasLt|cusolverDn|cusolver_common)"
                    + "\\.h: No such file.*")) {
                String message = "SKIPPED torch test eachBindingCompilesAgainstTorchsHeaders: torch " + torch.version()
                        + "'s CUDA headers include the CUDA math libraries' headers, which " + nvcc + "'s toolkit lacks";
                System.err.println(message);
                Assumptions.abort(message);
            }
            assertEquals(0, r.code(), p[0] + " " + p[1] + ": " + Toolchain.tail(r.output()));
        }
        System.out.println("TorchExportTest: bindings compiled against " + torch);
    }
}
