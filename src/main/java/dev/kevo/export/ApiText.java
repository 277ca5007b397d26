package dev.kevo.export;

import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.data.Shape;
import dev.kevo.task.op.Scalar;
import dev.kevo.task.op.Tensor;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * An operator's API spelled in C, C++ and Python for one dtype pair: the slots the launcher, header and torch binding
 * templates take. Every list here is made from the operator's tensors, so a template never names a tensor.
 */
record ApiText(OperatorApi api, Precision dtype) {

    /** The C type of a tensor's elements. */
    String cType(Tensor t) {
        return switch (t.element()) {
            case INT32 -> "int";
            case INT64 -> "int64_t";
            case X, Y, F32 -> ExportTypes.cType(t.dtype(dtype));
        };
    }

    /** The torch dtype of a tensor's elements, in C++. */
    String torchType(Tensor t) {
        return switch (t.element()) {
            case INT32 -> "torch::kInt32";
            case INT64 -> "torch::kInt64";
            case X, Y, F32 -> ExportTypes.torch(t.dtype(dtype));
        };
    }

    /** The torch dtype of a tensor's elements, as a Python user writes it: {@code torch.int32}. */
    String pythonType(Tensor t) {
        return switch (t.element()) {
            case INT32 -> "torch.int32";
            case INT64 -> "torch.int64";
            case X, Y, F32 -> ExportTypes.python(t.dtype(dtype));
        };
    }

    /** A tensor as a C API parameter: {@code const float* x} for an input, {@code float* y} for an output. */
    String cParam(Tensor t) {
        return (t.role() == Tensor.Role.INPUT ? "const " : "") + cType(t) + "* " + t.name();
    }

    /**
     * The C API's value parameters: the tensors in the operator's order, then its scalars ({@code const float* x,
     * float* y}; {@code ..., float* y, float scale}).
     */
    String cParams() {
        return join(api.tensors(), this::cParam) + api.scalars().stream().map(s -> ", float " + s.name())
                .collect(Collectors.joining());
    }

    /**
     * The C API's shape parameters: {@code int rows, int cols}, or attention's layout and mask kind for an operator of
     * attention shapes ({@link OperatorApi#attention}).
     */
    String shapeParams() {
        return api.attention() ? "int batch, int heads, int queries, int keys, int mask_kind" : "int rows, int cols";
    }

    /** {@code y = softmax(x)}, {@code y = masked(x, mask)}: what the package computes, as a formula. */
    String formula() {
        List<Tensor> outs = api.outputs();
        String result = outs.size() == 1 ? outs.getFirst().name() : "(" + join(outs, Tensor::name) + ")";
        return result + " = " + api.function() + "(" + join(api.inputs(), Tensor::name) + ")";
    }

    /** The formula, the rows and the tensors' types: what the package computes, in one sentence. */
    String definition() {
        return formula() + " " + where();
    }

    /** The definition after its formula: {@code over each row ..., x of float and y of float (kevo dtype fp32, ...)}. */
    String where() {
        return (api.attention() ? "over each row of a row-major [batch, heads, queries, keys] tensor (rows = batch * "
                + "heads * queries of keys columns), masked as mask_kind says (" + masks() + ")"
                : "over each row of a row-major rows x cols matrix") + ", " + and(api.tensors().stream()
                .map(t -> t.name() + " of " + cType(t)).toList()) + " (kevo dtype " + dtype.id()
                + ", accumulated in float32)";
    }

    /** The mask kinds by number, and the tensor each reads beside x: {@code 0 none, 1 causal, 2 padding (lengths)}. */
    String masks() {
        return java.util.Arrays.stream(MaskKind.values()).map(k -> k.ordinal() + " " + k.id() + api.tensors().stream()
                .filter(t -> t.extent() != Tensor.Extent.ROWS_COLS && t.present(exampleOf(k)))
                .map(t -> " (" + t.name() + ")").collect(Collectors.joining())).collect(Collectors.joining(", "));
    }

    private static Shape exampleOf(MaskKind kind) {
        return Shape.attention(1, 1, 1, 1, kind);
    }

    /** The C API's value arguments by name: the tensors, then the scalars ({@code x, lengths, mask, y, scale}). */
    String callArgs() {
        return String.join(", ", api.slots().subList(0, api.slots().size() - 1));
    }

    /** The C API's shape arguments by name: {@code rows, cols}, or {@code batch, heads, queries, keys, mask_kind}. */
    String shapeArgs() {
        return api.attention() ? "batch, heads, queries, keys, mask_kind" : "rows, cols";
    }

    /** {@code x and y}, {@code x, mask and y}: the tensors in a sentence. */
    String tensorList() {
        return and(api.tensors().stream().map(Tensor::name).toList());
    }

    static String and(List<String> items) {
        return items.size() <= 1 ? String.join("", items)
                : String.join(", ", items.subList(0, items.size() - 1)) + " and " + items.getLast();
    }

    private static String join(List<Tensor> tensors, Function<Tensor, String> each) {
        return tensors.stream().map(each).collect(Collectors.joining(", "));
    }

    /**
     * The torch op's parameters in Python, in order: the inputs every call gives ({@code x}, a loss's {@code labels}),
     * the scalars ({@code scale}), then for an operator of attention shapes the mask kind by name and the tensors a mask
     * brings, None unless its kind reads them; then {@code dim}. {@code softmax(x, dim=-1)}, {@code masked_softmax(x,
     * scale, mask_kind="none", lengths=None, mask=None, dim=-1)}.
     */
    String pySignature() {
        List<String> params = new java.util.ArrayList<>(api.inputs().stream().filter(ApiText::required)
                .map(Tensor::name).toList());
        api.scalars().forEach(x -> params.add(x.name()));
        if (api.attention()) {
            params.add("mask_kind=\"" + MaskKind.NONE.id() + "\"");
            api.inputs().stream().filter(t -> !required(t)).forEach(t -> params.add(t.name() + "=None"));
        }
        params.add("dim=-1");
        return api.function() + "(" + String.join(", ", params) + ")";
    }

    /**
     * An input every call gives: one of an element per (row, column), or of one per row (a loss's labels); the others
     * (a mask's tensors) are given only where the mask kind reads them.
     */
    private static boolean required(Tensor t) {
        return t.extent() == Tensor.Extent.ROWS_COLS || t.extent() == Tensor.Extent.ROWS;
    }

    /** The mask kinds under which a kernel reads the tensor ({@link Tensor#present}): all for x, padding for lengths. */
    static List<MaskKind> readBy(Tensor t) {
        return java.util.Arrays.stream(MaskKind.values()).filter(k -> t.present(exampleOf(k))).toList();
    }

    /** Bit k set where a shape of mask kind k reads the tensor. */
    private static int reads(Tensor t) {
        return readBy(t).stream().mapToInt(k -> 1 << k.ordinal()).reduce(0, (a, b) -> a | b);
    }

    /**
     * The torch binding's slots: its op takes the inputs and scalars by name in {@link #pySignature}'s order (a tensor
     * a mask brings as an optional one) and returns the outputs; the table of the tensors says which mask kinds read
     * each; the C API gets the scalars as floats and the shape as {@link #shapeParams} says.
     */
    private Map<String, String> torchSlots() {
        Map<String, String> s = new LinkedHashMap<>();
        List<String> params = new java.util.ArrayList<>(api.inputs().stream().filter(ApiText::required)
                .map(t -> "const torch::Tensor& " + t.name()).toList());
        List<String> args = new java.util.ArrayList<>(api.inputs().stream().filter(ApiText::required)
                .map(t -> "pybind11::arg(" + CText.string(t.name()) + ")").toList());
        api.scalars().forEach(x -> {
            params.add("double " + x.name());
            args.add("pybind11::arg(" + CText.string(x.name()) + ")");
        });
        if (api.attention()) {
            params.add("const std::string& mask_kind");
            args.add("pybind11::arg(\"mask_kind\") = " + CText.string(MaskKind.NONE.id()));
            api.inputs().stream().filter(t -> !required(t)).forEach(t -> {
                params.add("const std::optional<torch::Tensor>& " + t.name());
                args.add("pybind11::arg(" + CText.string(t.name()) + ") = pybind11::none()");
            });
        }
        s.put("TORCH_PARAMS", String.join(", ", params));
        s.put("PY_ARGS", String.join(", ", args));
        s.put("PY_SIGNATURE", pySignature());
        // The inputs in the operator's order: an undefined tensor for an optional one given as None.
        s.put("TORCH_INPUTS", join(api.inputs(), t -> required(t) ? t.name() : t.name() + ".value_or(torch::Tensor())"));
        s.put("TORCH_SCALARS", api.scalars().stream().map(Scalar::name).collect(Collectors.joining(", ")));
        s.put("TORCH_MASK_KIND", api.attention() ? "mask_kind" : CText.string(MaskKind.NONE.id()));
        s.put("SCALAR_NAMES", api.scalars().stream().map(x -> CText.string(x.name())).collect(Collectors.joining(", ")));
        s.put("TORCH_SCALAR_ARGS", IntStream.range(0, api.scalars().size())
                .mapToObj(i -> "\n        static_cast<float>(scalars[" + i + "]),").collect(Collectors.joining()));
        s.put("TORCH_SHAPE_ARGS", api.attention() ? "static_cast<int>(s.batch), static_cast<int>(s.heads), "
                + "static_cast<int>(s.queries), static_cast<int>(s.cols), s.mask_kind"
                : "static_cast<int>(s.rows), static_cast<int>(s.cols)");
        s.put("ATTENTION", Boolean.toString(api.attention()));
        s.put("TORCH_MASK_KINDS", api.op().maskKinds().stream().map(k -> "{" + CText.string(k.id()) + ", "
                + k.ordinal() + "}").collect(Collectors.joining(", ")));
        s.put("TORCH_TENSOR_TABLE", api.tensors().stream().map(t -> "{" + CText.string(t.name()) + ", "
                + torchType(t) + ", " + (t.role() == Tensor.Role.OUTPUT) + ", " + t.extent().ordinal() + ", 0x"
                + Integer.toHexString(reads(t)) + "}").collect(Collectors.joining(",\n    ")));
        s.put("TORCH_DOC", CText.string(api.attention()
                ? pySignature() + " over the last dimension (the keys) of a contiguous CUDA tensor [batch, heads, "
                        + "queries, keys], masked as mask_kind says (" + masks() + "), kevo dtype " + dtype.id()
                : api.function() + " over the last dimension of contiguous CUDA tensors, kevo dtype " + dtype.id()));
        return s;
    }

    /** The slots of the header, launcher and torch binding templates. */
    Map<String, String> slots() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("P", api.prefix());
        s.put("PU", api.macro());
        s.put("FN", api.function());
        s.put("DTYPE", dtype.id());
        s.put("TYPE_INCLUDES", ExportTypes.includes(dtype));
        s.put("DEFINITION", definition());
        s.put("TENSOR_LIST", tensorList());
        s.put("PARAMS", cParams());
        s.put("SHAPE_PARAMS", shapeParams());
        // The launcher's shape, from the C API's shape parameters.
        s.put("MAKE_SHAPE", api.attention() ? "shape_of(batch, heads, queries, keys, mask_kind, true, &shape)"
                : "shape_of(1, 1, rows, cols, 0, false, &shape)");
        s.put("MASK_LIST", api.attention() ? masks() : "0 none");
        s.put("SCALAR_COUNT", Integer.toString(api.scalars().size()));
        // A C array may not be empty: the scalars' values, then a 0 that no slot names.
        s.put("SCALAR_VALUES", api.scalars().stream().map(x -> x.name() + ", ").collect(Collectors.joining()) + "0");
        // Each scalar's name and whether kevo judged it at positive values only, each followed by a comma: the C
        // arrays end with one entry no slot names.
        s.put("SCALAR_C_NAMES", api.scalars().stream().map(x -> CText.string(x.name()) + ", ")
                .collect(Collectors.joining()));
        s.put("SCALAR_POSITIVE", api.scalars().stream().map(x -> x.positive() + ", ").collect(Collectors.joining()));
        s.put("EXTENT_ROWS_COLS", Integer.toString(Tensor.Extent.ROWS_COLS.ordinal()));
        s.put("EXTENT_BATCH", Integer.toString(Tensor.Extent.BATCH.ordinal()));
        s.put("EXTENT_BATCH_QUERIES_KEYS", Integer.toString(Tensor.Extent.BATCH_QUERIES_KEYS.ordinal()));
        s.put("EXTENT_ROWS", Integer.toString(Tensor.Extent.ROWS.ordinal()));
        s.put("EXTENT_ONE", Integer.toString(Tensor.Extent.ONE.ordinal()));
        s.put("MASK_PADDING", Integer.toString(MaskKind.PADDING.ordinal()));
        s.put("MASK_ADDITIVE", Integer.toString(MaskKind.ADDITIVE.ordinal()));
        s.put("TENSOR_COUNT", Integer.toString(api.tensors().size()));
        s.put("TENSOR_NAMES", join(api.tensors(), Tensor::name));
        s.put("TENSOR_TABLE", join(api.tensors(), t -> "{" + CText.string(t.name()) + ", sizeof(" + cType(t)
                + "), " + (t.role() == Tensor.Role.OUTPUT) + ", " + t.extent().ordinal() + "}"));
        s.putAll(torchSlots());
        s.put("TYPED_POINTERS", IntStream.range(0, api.tensors().size()).mapToObj(i -> {
            Tensor t = api.tensors().get(i);
            return "static_cast<" + (t.role() == Tensor.Role.INPUT ? "const " : "") + cType(t) + "*>(pointers[" + i
                    + "])";
        }).collect(Collectors.joining(",\n        ")));
        s.put("INPUT_COUNT", Integer.toString(api.inputs().size()));
        s.put("OUTPUT_COUNT", Integer.toString(api.outputs().size()));
        // One output is returned as a tensor, several as a list, in the operator's order.
        boolean one = api.outputs().size() == 1;
        s.put("RETURN_TYPE", one ? "torch::Tensor" : "std::vector<torch::Tensor>");
        s.put("RESULT", one ? "outputs[0]" : "std::vector<torch::Tensor>(outputs.begin(), outputs.end())");
        return s;
    }
}
