package dev.kevo.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kevo.KevoException;
import dev.kevo.data.Dtype;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Tensor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a package's names and signatures are made of: the operator's id and tensors, nothing else. */
class OperatorApiTest {

    @Test
    void eachOperatorNamesItsPackage() {
        OperatorApi softmax = OperatorApi.of(Operators.SOFTMAX);
        assertEquals(List.of("kevo_softmax.cu", "kevo_softmax.h", "kevo_softmax_plan.h", "kevo_softmax_cubin.h",
                "kevo_softmax_kernels.cu", "kevo_softmax_torch.cpp"), List.of(softmax.source(), softmax.header(),
                softmax.planHeader(), softmax.cubinHeader(), softmax.kernels(), softmax.torchBinding()));
        OperatorApi log = OperatorApi.of(Operators.LOG_SOFTMAX);
        assertEquals("kevo_log_softmax", log.prefix());
        assertEquals("KEVO_LOG_SOFTMAX", log.macro());
        assertEquals("log_softmax", log.function());
        assertEquals("kevo_log_softmax_torch.cpp", log.torchBinding());
    }

    /** A masked operator's two inputs become two parameters of the C API and the torch op, in its order. */
    @Test
    void theTensorsMakeTheSignatures() {
        OperatorApi api = OperatorApi.of(TestOperator.masked());
        assertEquals(List.of("x", "mask", "y", "ws"), api.slots());
        assertEquals(1, api.slot("mask"));
        Map<String, String> bf16 = new ApiText(api, Precision.BF16_FP32).slots();
        assertEquals("const __nv_bfloat16* x, const __nv_bfloat16* mask, float* y", bf16.get("PARAMS"));
        assertEquals("x, mask, y", bf16.get("TENSOR_NAMES"));
        assertEquals("{\"x\", sizeof(__nv_bfloat16), false, 0}, {\"mask\", sizeof(__nv_bfloat16), false, 0}, "
                + "{\"y\", sizeof(float), true, 0}", bf16.get("TENSOR_TABLE"));
        assertEquals("int rows, int cols", bf16.get("SHAPE_PARAMS"));
        assertEquals("const torch::Tensor& x, const torch::Tensor& mask", bf16.get("TORCH_PARAMS"));
        assertEquals("pybind11::arg(\"x\"), pybind11::arg(\"mask\")", bf16.get("PY_ARGS"));
        assertEquals("static_cast<const __nv_bfloat16*>(pointers[0]),\n        static_cast<const __nv_bfloat16*>"
                + "(pointers[1]),\n        static_cast<float*>(pointers[2])", bf16.get("TYPED_POINTERS"));
        assertEquals("2", bf16.get("INPUT_COUNT"));
        assertEquals("torch::Tensor", bf16.get("RETURN_TYPE"));
        assertEquals("y = masked(x, mask) over each row of a row-major rows x cols matrix, x of __nv_bfloat16, mask of "
                + "__nv_bfloat16 and y of float (kevo dtype bf16-fp32, accumulated in float32)",
                new ApiText(api, Precision.BF16_FP32).definition());
        assertTrue(bf16.get("TYPE_INCLUDES").equals("#include <cuda_bf16.h>\n"), bf16.get("TYPE_INCLUDES"));
    }

    /**
     * masked_softmax's API comes from its Operator value: the tensors in its order (lengths int32 whatever the dtype),
     * its scalar after them, attention's layout and mask kind for the shape, and the scalar as a slot of the plan
     * between the tensors and the workspace.
     */
    @Test
    void maskedSoftmaxsTensorsScalarAndLayoutMakeItsApi() {
        OperatorApi api = OperatorApi.of(Operators.MASKED_SOFTMAX);
        assertTrue(api.attention());
        assertEquals(List.of("x", "lengths", "mask", "y", "scale", "ws"), api.slots());
        assertEquals(4, api.slot("scale"));
        Map<String, String> fp16 = new ApiText(api, Precision.FP16).slots();
        assertEquals("const __half* x, const int* lengths, const __half* mask, __half* y, float scale",
                fp16.get("PARAMS"));
        assertEquals("int batch, int heads, int queries, int keys, int mask_kind", fp16.get("SHAPE_PARAMS"));
        assertEquals("{\"x\", sizeof(__half), false, 0}, {\"lengths\", sizeof(int), false, 1}, "
                + "{\"mask\", sizeof(__half), false, 2}, {\"y\", sizeof(__half), true, 0}", fp16.get("TENSOR_TABLE"));
        assertEquals("scale, 0", fp16.get("SCALAR_VALUES"));
        assertTrue(fp16.get("DEFINITION").contains("masked as mask_kind says (0 none, 1 causal, 2 padding (lengths), "
                + "3 additive (mask))"), fp16.get("DEFINITION"));
        // softmax has no scalar: the C array of values holds only its filler
        assertEquals("0", new ApiText(OperatorApi.of(Operators.SOFTMAX), Precision.FP32).slots().get("SCALAR_VALUES"));
        assertFalse(OperatorApi.of(Operators.SOFTMAX).attention());
    }

    /**
     * The torch op passes the scale, the mask kind and the tensors a mask brings (masked_softmax: nothing refused
     * there any more); what it still cannot make, a first input that is not of one element per row and column, or a
     * tensor of another extent in an operator no mask kind says when to read it for, is refused there in one line.
     * The C API passes everything kevo judges; an output of another extent, which kevo's evaluator cannot judge, no
     * target packages.
     */
    @Test
    void theTorchOpRefusesOnlyWhatItCannotPassInOneLine() {
        assertEquals(java.util.Optional.empty(), OperatorApi.unsupported(Operators.MASKED_SOFTMAX, ExportTarget.CPP));
        assertEquals(java.util.Optional.empty(), OperatorApi.unsupported(Operators.MASKED_SOFTMAX, ExportTarget.TORCH));
        assertEquals(java.util.Optional.empty(), OperatorApi.unsupported(Operators.SOFTMAX, ExportTarget.TORCH));
        assertEquals(java.util.Optional.empty(), OperatorApi.unsupported(TestOperator.masked(), ExportTarget.TORCH));
        TestOperator perBatch = new TestOperator("stats", List.of(
                new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
                new Tensor("lengths", Tensor.Role.INPUT, Tensor.Element.INT32, Tensor.Extent.BATCH),
                new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y)));
        assertEquals("kevo export --to torch does not package stats yet: its torch op would lack tensor `lengths` "
                + "(batch); --to cpp exports it", OperatorApi.unsupported(perBatch, ExportTarget.TORCH).orElseThrow());
        assertEquals(java.util.Optional.empty(), OperatorApi.unsupported(perBatch, ExportTarget.CPP));
        // An output of another extent is one kevo's evaluator cannot judge: no target packages it.
        TestOperator perMask = new TestOperator("masks", List.of(
                new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
                new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y, Tensor.Extent.BATCH_QUERIES_KEYS)));
        for (ExportTarget target : ExportTarget.values()) {
            assertEquals("kevo export packages only what kevo judges: masks has tensors kevo's evaluator does not "
                    + "generate or judge yet: `y` (output, batch queries keys)",
                    OperatorApi.unsupported(perMask, target).orElseThrow());
        }
        TestOperator lengthsFirst = new TestOperator("late", List.of(
                new Tensor("lengths", Tensor.Role.INPUT, Tensor.Element.INT32, Tensor.Extent.BATCH),
                new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
                new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y)));
        assertTrue(OperatorApi.unsupported(lengthsFirst, ExportTarget.TORCH).orElseThrow().contains(
                "a first input of one element per row and column"));
    }

    /**
     * masked_softmax's torch op, from its Operator value: x, then the scale (a Python float, a float32 to the kernel),
     * the mask kind by name (default none) and lengths and mask as optional tensors, each read under the kind that
     * reads it; the C API gets the attention layout and mask kind. softmax's keeps its signature.
     */
    @Test
    void maskedSoftmaxsTorchOpTakesScaleMaskKindAndOptionalMaskTensors() {
        OperatorApi api = OperatorApi.of(Operators.MASKED_SOFTMAX);
        ApiText text = new ApiText(api, Precision.BF16);
        Map<String, String> bf16 = text.slots();
        assertEquals("masked_softmax(x, scale, mask_kind=\"none\", lengths=None, mask=None, dim=-1)",
                text.pySignature());
        assertEquals("const torch::Tensor& x, double scale, const std::string& mask_kind, "
                + "const std::optional<torch::Tensor>& lengths, const std::optional<torch::Tensor>& mask",
                bf16.get("TORCH_PARAMS"));
        assertEquals("pybind11::arg(\"x\"), pybind11::arg(\"scale\"), pybind11::arg(\"mask_kind\") = \"none\", "
                + "pybind11::arg(\"lengths\") = pybind11::none(), pybind11::arg(\"mask\") = pybind11::none()",
                bf16.get("PY_ARGS"));
        assertEquals("x, lengths.value_or(torch::Tensor()), mask.value_or(torch::Tensor())", bf16.get("TORCH_INPUTS"));
        assertEquals("scale", bf16.get("TORCH_SCALARS"));
        assertEquals("mask_kind", bf16.get("TORCH_MASK_KIND"));
        // each tensor's extent and the mask kinds that read it: x always, lengths under padding, mask under additive
        assertEquals("{\"x\", torch::kBFloat16, false, 0, 0xf},\n    {\"lengths\", torch::kInt32, false, 1, 0x4},\n    "
                + "{\"mask\", torch::kBFloat16, false, 2, 0x8},\n    {\"y\", torch::kBFloat16, true, 0, 0xf}",
                bf16.get("TORCH_TENSOR_TABLE"));
        assertEquals("{\"none\", 0}, {\"causal\", 1}, {\"padding\", 2}, {\"additive\", 3}", bf16.get("TORCH_MASK_KINDS"));
        assertEquals("\n        static_cast<float>(scalars[0]),", bf16.get("TORCH_SCALAR_ARGS"));
        assertEquals("static_cast<int>(s.batch), static_cast<int>(s.heads), static_cast<int>(s.queries), "
                + "static_cast<int>(s.cols), s.mask_kind", bf16.get("TORCH_SHAPE_ARGS"));
        assertEquals("true", bf16.get("ATTENTION"));
        assertEquals(List.of(MaskKind.PADDING), ApiText.readBy(Operators.MASKED_SOFTMAX.tensors().get(1)));
        assertEquals(List.of(MaskKind.ADDITIVE), ApiText.readBy(Operators.MASKED_SOFTMAX.tensors().get(2)));

        ApiText softmax = new ApiText(OperatorApi.of(Operators.SOFTMAX), Precision.FP32);
        Map<String, String> plain = softmax.slots();
        assertEquals("softmax(x, dim=-1)", softmax.pySignature());
        assertEquals("const torch::Tensor& x", plain.get("TORCH_PARAMS"));
        assertEquals("pybind11::arg(\"x\")", plain.get("PY_ARGS"));
        assertEquals("", plain.get("TORCH_SCALARS"));
        assertEquals("", plain.get("TORCH_SCALAR_ARGS"));
        assertEquals("\"none\"", plain.get("TORCH_MASK_KIND"));
        assertEquals("static_cast<int>(s.rows), static_cast<int>(s.cols)", plain.get("TORCH_SHAPE_ARGS"));
        assertEquals("false", plain.get("ATTENTION"));
        assertEquals("{\"none\", 0}", plain.get("TORCH_MASK_KINDS"));
    }

    @Test
    void severalOutputsAreReturnedAsAList() {
        OperatorApi api = OperatorApi.of(new TestOperator("split", List.of(
                new Tensor("x", Tensor.Role.INPUT, Tensor.Element.X),
                new Tensor("lo", Tensor.Role.OUTPUT, Tensor.Element.Y),
                new Tensor("hi", Tensor.Role.OUTPUT, Tensor.Element.Y))));
        Map<String, String> slots = new ApiText(api, Precision.FP32).slots();
        assertEquals("std::vector<torch::Tensor>", slots.get("RETURN_TYPE"));
        assertEquals("std::vector<torch::Tensor>(outputs.begin(), outputs.end())", slots.get("RESULT"));
        assertEquals("(lo, hi) = split(x)", new ApiText(api, Precision.FP32).definition().split(" over ")[0]);
    }

    /** A name the generated code gives something else, or that is not an identifier, is refused in one line. */
    @Test
    void namesThatCannotBeParametersAreRefused() {
        for (String taken : List.of("rows", "dim", "stream", "tensors", "int", "lambda")) {
            KevoException e = assertThrows(KevoException.class, () -> OperatorApi.of(new TestOperator("op", List.of(
                    new Tensor(taken, Tensor.Role.INPUT, Tensor.Element.X),
                    new Tensor("y", Tensor.Role.OUTPUT, Tensor.Element.Y)))));
            assertEquals("operator op: tensor '" + taken + "' cannot be a parameter of the exported C API and torch op "
                    + "(the name is taken)", e.getMessage());
        }
        KevoException e = assertThrows(KevoException.class,
                () -> OperatorApi.of(new TestOperator("Soft-Max", TestOperator.masked().tensors())));
        assertTrue(e.getMessage().contains("'Soft-Max'") && e.getMessage().contains("lower-case identifier"),
                e.getMessage());
    }

    /** The examples check with the operator's tolerance, its relative bounds widened for a 16-bit y. */
    @Test
    void theExamplesToleranceIsTheOperatorsWidenedForYsType() {
        assertEquals(Map.of("ABS_TOL", "0.000001", "REL_TOL", "0.0001", "REL_L2", "0.0001"),
                ExampleTolerance.of(Operators.SOFTMAX.tolerance(), Dtype.FP32).slots());
        assertEquals(Map.of("ABS_TOL", "0.0001", "REL_TOL", "0.00001", "REL_L2", "0.00001"),
                ExampleTolerance.of(Operators.LOG_SOFTMAX.tolerance(), Dtype.FP32).slots());
        assertEquals(Map.of("ABS_TOL", "0.0001", "REL_TOL", "0.00401", "REL_L2", "0.00401"),
                ExampleTolerance.of(Operators.LOG_SOFTMAX.tolerance(), Dtype.BF16).slots());
        assertEquals(Map.of("ABS_TOL", "0.000001", "REL_TOL", "0.0006", "REL_L2", "0.0006"),
                ExampleTolerance.of(Operators.SOFTMAX.tolerance(), Dtype.FP16).slots());
    }
}
