package dev.kevo.export;

import dev.kevo.KevoException;
import dev.kevo.cuda.Prelude;
import dev.kevo.data.Dtype;
import dev.kevo.data.MaskKind;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import dev.kevo.task.op.Scalar;
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
 * example.py calls the torch op and checks it against torch's function for the operator, or torch's composition of it
 * ({@link TorchReference}). Both are written for the row-wise family the evaluator judges: one input and one output
 * of rows x cols elements, and the tensors a mask brings and a scale (in C read through the harness's own per-row
 * context).
 */
final class Examples {
    /** A {@code #line} directive, which names a file of kevo's jar: a comment in the example instead. */
    private static final Pattern LINE = Pattern.compile("(?m)^#line \\d+ \"([^\"\\n]*)\"[^\\n]*$");
    private static final Pattern DEVICE = Pattern.compile("\\b__device__\\b");
    /** The shapes a row-wise example.cu checks when given none: a block-sized row and an LM head's few long ones. */
    private static final String DEFAULT_ROWS = CText.string("1024x1000") + ", " + CText.string("8x128256");

    private Examples() {
    }

    /**
     * example.cu, in {@code dtype}: every operator's, from its tensors, scalar and shapes. x is drawn spread, the
     * tensors a mask brings as kevo's cases draw them at their edges (a length of 0, rows masked throughout), and each
     * element is checked against kevo's own score and reference compiled for the host.
     */
    static String cpp(OperatorApi api, Precision dtype) {
        if (api.op().gradientOf().isPresent()) {
            return cppGradient(api, dtype);
        }
        if (api.op().reducedOutput().isPresent()) {
            return cppLoss(api, dtype);
        }
        Tensor in = rowwise(api, Tensor.Role.INPUT);
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        if (api.scalars().size() > 1) {
            throw KevoException.input("operator " + api.op().id() + ": kevo export's C example passes one scalar (the "
                    + "harness's scale), not " + api.scalars().size());
        }
        List<Tensor> tensors = api.tensors();
        Map<String, String> s = cppSlots(api, dtype, in, out);
        s.put("SCORE", host(api.op().scoreSource()));
        s.put("REFERENCE", hostReference(api.op()));
        s.put("ATTENTION", Boolean.toString(api.attention()));
        s.put("USAGE", api.attention() ? "BATCHxHEADSxQUERIESxKEYS:MASK (MASK one of " + MaskKind.ids() + ")"
                : "ROWSxCOLS");
        s.put("DEFAULT_SHAPES", api.attention()
                ? api.op().maskKinds().stream().map(k -> CText.string("2x8x128x128:" + k.id()))
                        .collect(Collectors.joining(", ")) + ", " + CText.string("1x16x1x8192:" + api.op().maskKinds()
                        .getLast().id())
                : DEFAULT_ROWS);
        s.put("MAIN", Template.fill("example_main.cu", s));
        s.put("EXTENTS", tensors.stream().map(t -> Integer.toString(t.extent().ordinal()))
                .collect(Collectors.joining(", ")));
        s.put("X", Integer.toString(tensors.indexOf(in)));
        s.put("Y", Integer.toString(tensors.indexOf(out)));
        s.put("FILL_MASKS", fillMasks(api, ExportTypes.fromFloat(in.dtype(dtype))));
        // The scale is drawn per shape among the operator's values, as kevo draws it per case.
        s.put("SCALAR", api.scalars().stream().map(Examples::drawn).collect(Collectors.joining()));
        s.put("SCALE", api.scalars().isEmpty() ? "1.0f" : api.scalars().getFirst().name());
        StringBuilder call = new StringBuilder(deviceArguments(api, dtype));
        api.scalars().forEach(x -> call.append(", ").append(x.name()));
        call.append(api.attention() ? ", batch, heads, queries, keys, kind" : ", rows, cols");
        s.put("CALL", call.toString());
        return Template.fill("example.cu", s);
    }

    /**
     * example.cu of a gradient ({@link Operator#gradientOf}): its two row inputs made as training gives them, the
     * forward's output (kevo's reference of the forward on spread x, rounded to its type) and a spread incoming
     * gradient, and each element checked against kevo's reference of the gradient with kevo's bound, relative to dy's
     * scale (docs/measurement.md).
     */
    private static String cppGradient(OperatorApi api, Precision dtype) {
        Operator forward = api.op().gradientOf().orElseThrow();
        List<Tensor> rows = api.op().rowInputs();
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        if (rows.size() != 2 || !api.scalars().isEmpty() || api.attention()) {
            throw KevoException.input("operator " + api.op().id() + ": kevo export's C example of a gradient takes two "
                    + "row inputs (the forward's output and its gradient) and no scalar or mask");
        }
        Map<String, String> s = cppSlots(api, dtype, rows.getFirst(), out);
        s.put("FORWARD", forward.id());
        s.put("Y", rows.get(0).name());
        s.put("DY", rows.get(1).name());
        s.put("Y_AT", Integer.toString(api.tensors().indexOf(rows.get(0))));
        s.put("DY_AT", Integer.toString(api.tensors().indexOf(rows.get(1))));
        s.put("OUT_AT", Integer.toString(api.tensors().indexOf(out)));
        s.put("FORWARD_SCORE", host(forward.scoreSource()));
        s.put("FORWARD_REFERENCE", hostReference(forward));
        s.put("REFERENCE", hostReference(api.op()));
        s.put("CALL", deviceArguments(api, dtype) + ", rows, cols");
        s.put("COUNTS", counts(api));
        s.put("DEFAULT_SHAPES", DEFAULT_ROWS);
        s.put("MAIN", Template.fill("example_main.cu", s));
        return Template.fill("example_backward.cu", s);
    }

    /**
     * example.cu of a loss ({@link Operator#reducedOutput}: cross_entropy): spread logits, labels with one row in eight
     * ignored, g drawn among the operator's values; dx and the loss checked against kevo's reference of the row (its
     * statistic and log-probability, compiled for the host) with kevo's bounds: dx's relative to |g| / n, the loss's to
     * its scale.
     */
    private static String cppLoss(OperatorApi api, Precision dtype) {
        Tensor in = rowwise(api, Tensor.Role.INPUT);
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        Tensor loss = api.op().reducedOutput().orElseThrow();
        Tensor labels = api.inputs().stream().filter(t -> t.extent() == Tensor.Extent.ROWS).findFirst()
                .orElseThrow(() -> KevoException.input("operator " + api.op().id() + ": kevo export's C example of a "
                        + "loss takes its labels, one a row"));
        if (api.scalars().size() != 1 || api.attention()) {
            throw KevoException.input("operator " + api.op().id() + ": kevo export's C example of a loss takes one "
                    + "scalar (the incoming gradient) and no mask");
        }
        List<Tensor> tensors = api.tensors();
        Map<String, String> s = cppSlots(api, dtype, in, out);
        s.put("REFERENCE", host(api.op().scoreSource()) + hostReference(api.op()));
        s.put("COUNTS", counts(api));
        s.put("X_AT", Integer.toString(tensors.indexOf(in)));
        s.put("LABELS_AT", Integer.toString(tensors.indexOf(labels)));
        s.put("OUT_AT", Integer.toString(tensors.indexOf(out)));
        s.put("LOSS_AT", Integer.toString(tensors.indexOf(loss)));
        Scalar g = api.scalars().getFirst();
        s.put("SCALAR", drawn(g));
        s.put("SCALE", g.name());
        s.put("CALL", deviceArguments(api, dtype) + ", " + g.name() + ", rows, cols");
        s.put("DEFAULT_SHAPES", DEFAULT_ROWS + ", " + CText.string("1x50257"));
        s.put("MAIN", Template.fill("example_main.cu", s));
        return Template.fill("example_loss.cu", s);
    }

    /** What both C examples say the same way: names, types, the host context and the tolerance. */
    private static Map<String, String> cppSlots(OperatorApi api, Precision dtype, Tensor in, Tensor out) {
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
        s.put("TENSORS", Integer.toString(tensors.size()));
        s.put("OUTPUTS", tensors.stream().map(t -> Boolean.toString(t.role() == Tensor.Role.OUTPUT))
                .collect(Collectors.joining(", ")));
        s.put("ELEMENT_BYTES", tensors.stream().map(t -> "sizeof(" + text.cType(t) + ")")
                .collect(Collectors.joining(", ")));
        s.put("PRELUDE", Template.fill("example_prelude.cu", s));
        s.put("SUPPORT", Template.plain("example_support.cu"));
        return s;
    }

    /**
     * A scalar drawn per shape among the operator's values, as kevo draws it per case: {@code static const float
     * g_values[] = {...}; const float g = ...;}.
     */
    private static String drawn(Scalar x) {
        return "static const float " + x.name() + "_values[] = {" + x.values().stream()
                .map(v -> Float.toHexString(v) + "f").collect(Collectors.joining(", ")) + "};\n    const float "
                + x.name() + " = " + x.name() + "_values[(int)(uniform() * " + x.values().size() + ")];";
    }

    /**
     * Each tensor's elements for a ROWSxCOLS shape, as C expressions over {@code n} (rows * cols) and {@code rows}: what
     * a gradient's and a loss's example allocate (an attention shape's example counts by extent at run time).
     */
    private static String counts(OperatorApi api) {
        return api.tensors().stream().map(t -> switch (t.extent()) {
            case ROWS_COLS -> "n";
            case ROWS -> "(size_t)rows";
            case ONE -> "(size_t)1";
            case BATCH, BATCH_QUERIES_KEYS -> throw new IllegalStateException(unjudged(t));
        }).collect(Collectors.joining(", "));
    }

    /** The C API's tensor arguments, each buffer's device pointer cast to its type: {@code (const float*)t[0].device}. */
    private static String deviceArguments(OperatorApi api, Precision dtype) {
        ApiText text = new ApiText(api, dtype);
        StringBuilder call = new StringBuilder();
        for (int i = 0; i < api.tensors().size(); i++) {
            Tensor t = api.tensors().get(i);
            call.append(i == 0 ? "" : ", ").append('(').append(t.role() == Tensor.Role.INPUT ? "const " : "")
                    .append(text.cType(t)).append("*)t[").append(i).append("].device");
        }
        return call.toString();
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
                case ROWS, ONE -> throw new IllegalStateException(unjudged(t));
            }
        }
        return out.toString();
    }

    /** An extent no example draws: kevo judges no operator with one yet, so none reaches export (OperatorApi). */
    private static String unjudged(Tensor t) {
        return t.name() + ": kevo export's examples draw no tensor of extent " + t.extent();
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

    /**
     * example.py, in {@code dtype}, checked against {@code reference}. x is drawn spread, as kevo's normal cases draw
     * it; for an operator of attention shapes, on a few attention shapes in each of its mask kinds, its scalars drawn
     * among the operator's values and the tensors a mask brings drawn where the kind reads them (None elsewhere), at
     * their edges as example.cu draws them (a length of 0, rows masked throughout).
     */
    static String torch(OperatorApi api, Precision dtype, TorchReference reference) {
        Tensor in = api.op().rowInputs().getFirst();
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        Map<String, String> bound = tolerance(api, out, dtype).slots();
        Map<String, String> s = new LinkedHashMap<>(bound);
        if (reference.scale().isEmpty()) {
            s.put("PY_SCALE", "");
            s.put("PY_BOUND", bound.get("ABS_TOL") + " + " + bound.get("REL_TOL") + " * ref.abs()");
            s.put("PY_L2_OF", "ref");
        } else {
            s.put("PY_SCALE", "\n    scale = " + reference.scale() + "  # what kevo bounds an element's error relative to");
            s.put("PY_BOUND", bound.get("ABS_TOL") + " * scale + " + bound.get("REL_TOL") + " * ref.abs()");
            s.put("PY_L2_OF", "scale");
        }
        s.put("P", api.prefix());
        s.put("FN", api.function());
        s.put("DTYPE", dtype.id());
        s.put("TORCH_REF", reference.name());
        s.put("PY_REF", reference.call());
        String x = ExportTypes.python(in.dtype(dtype));
        List<String> inputs = new java.util.ArrayList<>();
        StringBuilder helpers = new StringBuilder();
        if (api.attention()) {
            // Every kind on one shape, more queries than keys (rows with no key left), and a decode row.
            s.put("PY_LOOP", "batch, heads, queries, keys, mask_kind in [" + api.op().maskKinds().stream()
                    .map(k -> "(2, 8, 128, 128, \"" + k.id() + "\")").collect(Collectors.joining(", "))
                    + ",\n        (2, 4, 256, 128, \"" + api.op().maskKinds().stream().filter(k -> k == MaskKind.CAUSAL)
                    .findFirst().orElse(MaskKind.NONE).id() + "\"), (1, 16, 1, 8192, \""
                    + api.op().maskKinds().getLast().id() + "\")]");
            s.put("PY_SHAPE", "{batch}x{heads}x{queries}x{keys}:{mask_kind}");
            inputs.add("\"" + in.name() + "\": (torch.randn(batch, heads, queries, keys, device=\"cuda\") * 4).to("
                    + x + ")");
        } else {
            s.put("PY_LOOP", "rows, cols in [(1024, 1000), (32, 50257), (1, 1000000)]");
            s.put("PY_SHAPE", "{rows}x{cols}");
            if (reference.inputs().isEmpty()) {
                // Each input by the op's keyword for it: spread values, as kevo's normal cases draw them, in its dtype.
                api.inputs().forEach(t -> inputs.add("\"" + t.name() + "\": (torch.randn(rows, cols, device=\"cuda\") "
                        + "* 4).to(" + ExportTypes.python(t.dtype(dtype)) + ")"));
            }
        }
        if (!api.scalars().isEmpty()) {
            helpers.append(PY_DRAW);
        }
        api.scalars().forEach(v -> inputs.add("\"" + v.name() + "\": draw((" + v.values().stream()
                .map(f -> Float.toString(f)).collect(Collectors.joining(", ")) + "))"));
        if (api.attention()) {
            inputs.add("\"mask_kind\": mask_kind");
            for (Tensor t : api.inputs()) {
                if (t.extent() == Tensor.Extent.ROWS_COLS) {
                    continue;
                }
                String draw = switch (t.extent()) {
                    case BATCH -> {
                        once(helpers, PY_BATCH);
                        yield "batch_entries(batch, keys)";
                    }
                    case BATCH_QUERIES_KEYS -> {
                        once(helpers, PY_BATCH_QUERIES_KEYS);
                        yield "batch_queries_keys(batch, queries, keys, " + ExportTypes.python(t.dtype(dtype)) + ")";
                    }
                    case ROWS_COLS -> throw new IllegalStateException("skipped above");
                    case ROWS, ONE -> throw new IllegalStateException(unjudged(t));
                };
                List<String> kinds = ApiText.readBy(t).stream().map(k -> "\"" + k.id() + "\"").toList();
                inputs.add("\"" + t.name() + "\": " + draw + " if mask_kind in (" + String.join(", ", kinds)
                        + (kinds.size() == 1 ? "," : "") + ") else None");
            }
        }
        if (!reference.definition().isEmpty()) {
            helpers.append("\n\n").append(reference.definition());
        }
        s.put("PY_HELPERS", helpers.isEmpty() ? "" : helpers + "\n");
        s.put("PY_INPUTS", reference.inputs().isEmpty()
                ? "{" + String.join(inputs.size() > 2 ? ",\n              " : ", ", inputs) + "}"
                : reference.inputs() + "(rows, cols, " + x + ")");
        s.put("PY_OUT", out.name() + " is " + ExportTypes.python(out.dtype(dtype)));
        return Template.fill("example.py", s);
    }

    /**
     * example.py of a loss (cross_entropy): the op on shapes of LM-head rows with one row in eight ignored (and one
     * shape with every row ignored, whose loss is NaN), with a drawn incoming gradient, then the loss function of the
     * package's loss module through autograd; dx and the loss checked against F.cross_entropy and its gradient in
     * float64 with kevo's bounds, as example_loss.cu checks them against kevo's reference.
     */
    static String torchLoss(OperatorApi api, Precision dtype) {
        Tensor in = rowwise(api, Tensor.Role.INPUT);
        Tensor out = rowwise(api, Tensor.Role.OUTPUT);
        Map<String, String> s = new LinkedHashMap<>(tolerance(api, out, dtype).slots());
        s.put("P", api.prefix());
        s.put("FN", api.function());
        s.put("DTYPE", dtype.id());
        s.put("X_TYPE", ExportTypes.python(in.dtype(dtype)));
        s.put("REDUCTION", reduction(api));
        s.put("PY_HELPERS", PY_DRAW + PY_STEP_TIME);
        return Template.fill("example_loss.py", s);
    }

    /** torch's name for a loss's reduction: cross_entropy's is the mean, cross_entropy_sum's the sum. */
    static String reduction(OperatorApi api) {
        return api.op().equals(Operators.CROSS_ENTROPY_SUM) ? "sum" : "mean";
    }

    private static void once(StringBuilder code, String definition) {
        if (code.indexOf(definition) < 0) {
            code.append(definition);
        }
    }

    /**
     * The median time of a training step's work in microseconds, by CUDA events after a few warm runs: the one timing
     * of the Python examples that time a step (a loss's example.py, a training package's train_check.py). The GPU is
     * kept busy (torch.cuda._sleep, for longer than the step takes the host to enqueue) before each timed run, so that
     * the events time the GPU's work as a training loop running ahead of the GPU sees it, not Python's autograd
     * overhead, which at small shapes is most of a step and the same for any kernel. A step that synchronises with the
     * host still pays for it.
     */
    static final String PY_STEP_TIME = """


            def median_us(run, rounds=30, warm=5):
                \"""The median of `rounds` CUDA-event timings of run() in microseconds, after `warm` runs, each queued
                behind a GPU sleep longer than the host takes to enqueue run().\"""
                import time
                for _ in range(warm):
                    run()
                torch.cuda.synchronize()
                began = time.perf_counter()
                run()
                enqueue_s = time.perf_counter() - began
                cycles = max(200_000, int(enqueue_s * 4e9))  # twice the enqueue time at 2 GHz
                times = []
                for _ in range(rounds):
                    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                    torch.cuda._sleep(cycles)
                    start.record()
                    run()
                    end.record()
                    end.synchronize()
                    times.append(start.elapsed_time(end) * 1000)
                return sorted(times)[len(times) // 2]
            """;

    /** A scalar of the example's inputs, drawn among the operator's values as kevo draws it per case. */
    private static final String PY_DRAW = """


            def draw(values):
                return values[int(torch.randint(len(values), ()))]
            """;

    /** A tensor of one element per batch entry (lengths), drawn as example.cu draws it: 0 for every fourth. */
    private static final String PY_BATCH = """


            def batch_entries(batch, keys):
                \"""One int32 per batch entry, 1 to keys, every fourth from the second 0 (its rows fully masked).\"""
                v = torch.randint(1, keys + 1, (batch,), device="cuda", dtype=torch.int32)
                v[1::4] = 0
                return v
            """;

    /** A tensor of one element per batch entry, query and key (an additive mask), drawn as example.cu draws it. */
    private static final String PY_BATCH_QUERIES_KEYS = """


            def batch_queries_keys(batch, queries, keys, dtype):
                \"""[batch, queries, keys] in x's dtype: biases, a quarter of them and every fourth query's row masked
                (torch.finfo(dtype).min, as Hugging Face masks).\"""
                m = torch.randn(batch, queries, keys, device="cuda")
                masked = torch.rand(batch, queries, keys, device="cuda") < 0.25
                masked[:, 3::4] = True
                return m.masked_fill(masked, torch.finfo(dtype).min).to(dtype)
            """;

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
