package dev.kevo.export;

import dev.kevo.KevoException;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Dtype;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Tensor;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A package's example programs, each checking the package against a float64 reference of its operator: example.cu
 * calls the C API on random rows and checks on the host with kevo's own reference (the operator's
 * {@link Operator#referenceSource()}, compiled for the host: the very functions kevo's evaluator judges with), and
 * example.py calls the torch op and checks it against torch's function for the operator ({@link TorchReference}).
 * Both are written for the row-wise family the evaluator judges: one input and one output of rows x cols elements,
 * and in C the tensors a mask brings and a scale, read through the harness's own per-row context.
 */
final class Examples {
    /** A {@code #line} directive, which names a file of kevo's jar: a comment in the example instead. */
    private static final Pattern LINE = Pattern.compile("(?m)^#line \\d+ \"([^\"\\n]*)\"[^\\n]*$");
    private static final Pattern DEVICE = Pattern.compile("\\b__device__\\b");

    private Examples() {
    }

    /**
     * example.cu, in {@code dtype}: every operator's, from its tensors, scalar and shapes. x is drawn spread, the
     * tensors a mask brings as kevo's cases draw them at their edges (a length of 0, rows masked throughout), and each
     * element is checked against kevo's own score and reference compiled for the host.
     */
    static String cpp(OperatorApi api, Precision dtype) {
        Tensor in = rowwise(api, Tensor.Role.INPUT);
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        if (api.scalars().size() > 1) {
            throw KevoException.input("operator " + api.op().id() + ": kevo export's C example passes one scalar (the "
                    + "harness's scale), not " + api.scalars().size());
        }
        ApiText text = new ApiText(api, dtype);
        List<Tensor> tensors = api.tensors();
        Map<String, String> s = new LinkedHashMap<>(tolerance(api, out, dtype).slots());
        s.put("P", api.prefix());
        s.put("FN", api.function());
        s.put("DTYPE", dtype.id());
        s.put("TYPES", ApiText.and(tensors.stream().map(t -> t.name() + " of " + text.cType(t)).toList()));
        s.put("OUT", out.name());
        s.put("IN_T", text.cType(in));
        s.put("OUT_T", text.cType(out));
        s.put("TO_IN", ExportTypes.fromFloat(in.dtype(dtype)));
        s.put("FROM_IN", ExportTypes.toFloat(in.dtype(dtype)));
        s.put("FROM_OUT", ExportTypes.toFloat(out.dtype(dtype)));
        s.put("LOWEST", LOWEST.get(in.dtype(dtype)));
        s.put("MASK_DEFINES", maskDefines());
        s.put("CONTEXT", hostContext());
        s.put("SCORE", host(api.op().scoreSource()));
        s.put("REFERENCE", hostReference(api.op()));
        s.put("ATTENTION", Boolean.toString(api.attention()));
        s.put("USAGE", api.attention() ? "BATCHxHEADSxQUERIESxKEYS:MASK (MASK one of " + MaskKind.ids() + ")"
                : "ROWSxCOLS");
        s.put("DEFAULT_SHAPES", api.attention()
                ? api.op().maskKinds().stream().map(k -> CText.string("2x8x128x128:" + k.id()))
                        .collect(Collectors.joining(", ")) + ", " + CText.string("1x16x1x8192:" + api.op().maskKinds()
                        .getLast().id())
                : CText.string("1024x1000") + ", " + CText.string("8x128256"));
        s.put("TENSORS", Integer.toString(tensors.size()));
        s.put("EXTENTS", tensors.stream().map(t -> Integer.toString(t.extent().ordinal()))
                .collect(Collectors.joining(", ")));
        s.put("ELEMENT_BYTES", tensors.stream().map(t -> "sizeof(" + text.cType(t) + ")")
                .collect(Collectors.joining(", ")));
        s.put("OUTPUTS", tensors.stream().map(t -> Boolean.toString(t.role() == Tensor.Role.OUTPUT))
                .collect(Collectors.joining(", ")));
        s.put("X", Integer.toString(tensors.indexOf(in)));
        s.put("Y", Integer.toString(tensors.indexOf(out)));
        s.put("FILL_MASKS", fillMasks(api, ExportTypes.fromFloat(in.dtype(dtype))));
        // The scale is drawn per shape among the operator's values, as kevo draws it per case.
        s.put("SCALAR", api.scalars().stream().map(x -> "static const float " + x.name() + "_values[] = {"
                + x.values().stream().map(v -> Float.toHexString(v) + "f").collect(Collectors.joining(", "))
                + "};\n    const float " + x.name() + " = " + x.name() + "_values[(int)(uniform() * "
                + x.values().size() + ")];").collect(Collectors.joining()));
        s.put("SCALE", api.scalars().isEmpty() ? "1.0f" : api.scalars().getFirst().name());
        StringBuilder call = new StringBuilder();
        for (int i = 0; i < tensors.size(); i++) {
            Tensor t = tensors.get(i);
            call.append(i == 0 ? "" : ", ").append('(').append(t.role() == Tensor.Role.INPUT ? "const " : "")
                    .append(text.cType(t)).append("*)t[").append(i).append("].device");
        }
        api.scalars().forEach(x -> call.append(", ").append(x.name()));
        call.append(api.attention() ? ", batch, heads, queries, keys, kind" : ", rows, cols");
        s.put("CALL", call.toString());
        return Template.fill("example.cu", s);
    }

    /** The lowest finite value of each x type, as the harness's kv_lowest gives it. */
    private static final Map<Dtype, String> LOWEST = Map.of(Dtype.FP32, "-FLT_MAX",
            Dtype.BF16, "-0x1.fep+127f", Dtype.FP16, "-65504.0f");

    /** The mask kinds by number and name, as kevo's harness and plan variable number them. */
    private static String maskDefines() {
        StringBuilder out = new StringBuilder();
        for (MaskKind k : MaskKind.values()) {
            out.append("#define KEVO_MASK_").append(k.name()).append(' ').append(k.ordinal()).append('\n');
        }
        out.append("#define KEVO_MASK_COUNT ").append(MaskKind.values().length).append('\n');
        out.append("[[maybe_unused]] static const char* const kevo_mask_names[KEVO_MASK_COUNT] = {").append(Arrays.stream(
                MaskKind.values()).map(k -> CText.string(k.id())).collect(Collectors.joining(", "))).append("};\n");
        return out.toString();
    }

    /** Fills each tensor a mask brings, by its extent, and points the reference's context at it. */
    private static String fillMasks(OperatorApi api, String toX) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < api.tensors().size(); i++) {
            Tensor t = api.tensors().get(i);
            if (t.role() != Tensor.Role.INPUT) {
                continue;
            }
            String buffer = "t[" + i + "].host";
            switch (t.extent()) {
                case ROWS_COLS -> {
                }
                case BATCH -> out.append("if (!").append(buffer).append(".empty()) {\n")
                        .append("        int* v = (int*)").append(buffer).append(".data();\n")
                        .append("        for (int b = 0; b < batch; b++) v[b] = b % 4 == 1 ? 0 : 1 + (int)(uniform() * cols);\n")
                        .append("        lengths = v;\n    }\n    ");
                case BATCH_QUERIES_KEYS -> out.append("if (!").append(buffer).append(".empty()) {\n")
                        .append("        KEVO_X* v = (KEVO_X*)").append(buffer).append(".data();\n")
                        .append("        for (size_t i = 0; i < counts[2]; i++) {\n")
                        .append("            v[i] = (i / cols) % 4 == 3 || uniform() < 0.25 ? ")
                        .append(toX).append("(kv_lowest(KEVO_X{})) : ").append(toX).append("((float)(uniform() - 0.5));\n")
                        .append("        }\n        bias = v;\n    }\n    ");
            }
        }
        return out.toString();
    }

    /**
     * The harness's per-row context (eval/harness.cu: KvAttention, KvRowAt, kv_row_at) as host code: the very
     * definitions kevo's reference kernels read an element's score through.
     */
    static String hostContext() {
        String harness = Prelude.resource(Examples.class, "/dev/kevo/eval/harness.cu");
        int start = harness.indexOf("struct KvAttention {");
        int end = harness.indexOf("\n}\n", harness.indexOf("KvRowAt kv_row_at("));
        if (start < 0 || end < 0) {
            throw new IllegalStateException("harness.cu no longer defines KvAttention and kv_row_at as export reads them");
        }
        return host(harness.substring(start, end + 3));
    }

    /** example.py, in {@code dtype}, checked against {@code torchFunction}. */
    static String torch(OperatorApi api, Precision dtype, String torchFunction) {
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        Map<String, String> s = new LinkedHashMap<>(tolerance(api, out, dtype).slots());
        s.put("P", api.prefix());
        s.put("FN", api.function());
        s.put("DTYPE", dtype.id());
        s.put("TORCH_REF", torchFunction);
        // Each input by the op's keyword for it: spread values, as kevo's normal cases draw them, in its dtype.
        s.put("PY_INPUTS", api.inputs().stream().map(t -> "\"" + t.name() + "\": (torch.randn(rows, cols, "
                + "device=\"cuda\") * 4).to(" + ExportTypes.python(t.dtype(dtype)) + ")")
                .collect(Collectors.joining(", ")));
        s.put("PY_OUT", out.name() + " is " + ExportTypes.python(out.dtype(dtype)));
        return Template.fill("example.py", s);
    }

    /**
     * kevo's reference of {@code op} as host code: its CUDA functions with {@code __device__} made {@code __host__},
     * and the names of the files they came from as comments. The operator's reference must therefore stay plain
     * arithmetic on doubles, as kevo's are (the nvcc tests build every operator's example).
     */
    static String hostReference(Operator op) {
        return host(op.referenceSource());
    }

    /** CUDA of kevo's as host code: {@code __device__} made {@code __host__}, {@code #line} made a comment. */
    private static String host(String cuda) {
        String source = LINE.matcher(cuda).replaceAll(
                m -> Matcher.quoteReplacement("// from kevo's " + CText.comment(m.group(1))));
        String host = DEVICE.matcher(source).replaceAll("__host__");
        return host.endsWith("\n") ? host : host + "\n";
    }

    /** The operator's tolerance, for the type of the output the examples check. */
    private static ExampleTolerance tolerance(OperatorApi api, Tensor out, Precision dtype) {
        return ExampleTolerance.of(api.op().tolerance(), out.dtype(dtype));
    }

    /** The one tensor of {@code role} that the examples, like kevo's evaluator, fill or check. */
    private static Tensor rowwise(OperatorApi api, Tensor.Role role) {
        var found = api.tensors().stream().filter(t -> t.role() == role && t.extent() == Tensor.Extent.ROWS_COLS)
                .toList();
        if (found.size() != 1) {
            throw KevoException.input("operator " + api.op().id() + ": kevo export's examples take one input and one "
                    + "output (the row-wise family kevo judges), not " + api.inputs().size() + " and "
                    + api.outputs().size());
        }
        return found.getFirst();
    }
}
