package dev.kevo.export;

import dev.kevo.KevoException;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Tensor;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A package's example programs, each checking the package against a float64 reference of its operator: example.cu
 * calls the C API on random rows and checks on the host with kevo's own reference (the operator's
 * {@link Operator#referenceSource()}, compiled for the host: the very functions kevo's evaluator judges with), and
 * example.py calls the torch op and checks it against torch's function for the operator ({@link TorchReference}).
 * Both are written for the row-wise family the evaluator judges: one input and one output of rows x cols elements.
 */
final class Examples {
    /** A {@code #line} directive, which names a file of kevo's jar: a comment in the example instead. */
    private static final Pattern LINE = Pattern.compile("(?m)^#line \\d+ \"([^\"\\n]*)\"[^\\n]*$");
    private static final Pattern DEVICE = Pattern.compile("\\b__device__\\b");

    private Examples() {
    }

    /** example.cu, in {@code dtype}. */
    static String cpp(OperatorApi api, Precision dtype) {
        Tensor in = rowwise(api, Tensor.Role.INPUT);
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        ApiText text = new ApiText(api, dtype);
        Map<String, String> s = new LinkedHashMap<>(tolerance(api, out, dtype).slots());
        s.put("P", api.prefix());
        s.put("FN", api.function());
        s.put("DTYPE", dtype.id());
        s.put("TYPES", ApiText.and(api.tensors().stream().map(t -> t.name() + " of " + text.cType(t)).toList()));
        s.put("IN", in.name());
        s.put("OUT", out.name());
        s.put("IN_T", text.cType(in));
        s.put("OUT_T", text.cType(out));
        s.put("TO_IN", ExportTypes.fromFloat(in.dtype(dtype)));
        s.put("FROM_IN", ExportTypes.toFloat(in.dtype(dtype)));
        s.put("FROM_OUT", ExportTypes.toFloat(out.dtype(dtype)));
        s.put("CALL", api.tensors().stream().map(t -> t.role() == Tensor.Role.INPUT ? "d_in" : "d_out")
                .collect(Collectors.joining(", ")));
        s.put("REFERENCE", hostReference(api.op()));
        return Template.fill("example.cu", s);
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
        String source = LINE.matcher(op.referenceSource()).replaceAll(
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
        var found = api.tensors().stream().filter(t -> t.role() == role).toList();
        if (found.size() != 1) {
            throw KevoException.input("operator " + api.op().id() + ": kevo export's examples take one input and one "
                    + "output (the row-wise family kevo judges), not " + api.inputs().size() + " and "
                    + api.outputs().size());
        }
        return found.getFirst();
    }
}
