package dev.kevo.task;

import dev.kevo.data.Dtype;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Tensor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether the kernels' tensor parameters (softmax's x and y; masked_softmax's int32 lengths and its mask in x's type
 * too) have the element types of the dtype judged. A file that declares bf16 but
 * takes {@code float* x} compiles (kevo passes device pointers, not typed arrays) and then reads two bf16 values as
 * one float: a wrong result at best, read past x's end at worst. Caught from the source, before any compile, so that
 * {@code kevo check} says so in one line, and a GPU never runs it.
 *
 * <p>Only element types kevo knows are judged ({@code float}, {@code kevo_bf16}, {@code kevo_half}, {@code double}, {@code int},
 * {@code long long} (and {@code long}, {@code int64_t}), and {@code KEVO_X} and {@code KEVO_Y}, which kevo defines as
 * x's and y's): a vector type ({@code float4},
 * {@code uint4}: 16-byte loads of any dtype), {@code void*} or a type of the file's own is left to the checks on the
 * GPU.
 */
public final class ParameterTypes {

    private static final Pattern DECLARATION = Pattern.compile("__global__\\s+(?:void\\s+)?"
            + "(?:__launch_bounds__\\s*\\([^()]*\\)\\s*)?(?:void\\s+)?([A-Za-z_]\\w*)\\s*\\(");
    private static final Pattern QUALIFIERS =
            Pattern.compile("\\b(const|volatile|__restrict__|__restrict|restrict)\\b");

    private ParameterTypes() {
    }

    /** The first x or y parameter whose element type contradicts {@code dtype}, as {@code line N: why}, or empty. */
    public static Optional<String> violation(KernelFile file, Precision dtype) {
        String code = SourceCode.withoutComments(file.source());
        Map<String, List<Param>> kernels = kernels(code);
        for (KernelFile.Plan plan : file.plans()) {
            for (KernelFile.Launch launch : plan.launches()) {
                // no such kernel: the compile's missing-kernel check names it
                List<Param> params = kernels.getOrDefault(launch.kernel(), List.of());
                Optional<String> found = violation(code, file.op(), launch, params, dtype);
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<String> violation(String code, Operator op, KernelFile.Launch launch, List<Param> params,
                                              Precision dtype) {
        for (int i = 0; i < launch.args().size() && i < params.size(); i++) {
            if (!(launch.args().get(i) instanceof KernelFile.Arg.Buffer(String name))) {
                continue;
            }
            Optional<Tensor> tensor = op.tensors().stream().filter(t -> t.name().equals(name)).findFirst();
            if (tensor.isEmpty()) {
                continue;  // the workspace: any type
            }
            String expected = tensor.get().element().cudaType(dtype);
            Param p = params.get(i);
            Optional<String> declared = elementType(p.type(), dtype);
            if (declared.isPresent() && !declared.get().equals(expected)) {
                String macro = tensor.get().element().declaredAs();
                return Optional.of("line " + SourcePolicy.lineOf(code, p.offset()) + ": kernel " + launch.kernel()
                        + " takes " + name + " as " + p.type() + ", but dtype " + dtype.id() + " stores "
                        + name + " as " + expected + " (declare it " + macro + "*)");
            }
        }
        return Optional.empty();
    }

    /**
     * The element type a pointer parameter's type names, with KEVO_X and KEVO_Y resolved for {@code dtype}; empty for
     * a type kevo does not know (or not a single pointer), which is not judged.
     */
    private static Optional<String> elementType(String type, Precision dtype) {
        String bare = QUALIFIERS.matcher(type).replaceAll(" ").strip();
        if (!bare.endsWith("*") || bare.indexOf('*') != bare.length() - 1) {
            return Optional.empty();
        }
        String base = bare.substring(0, bare.length() - 1).strip().replaceAll("\\s+", " ");
        // long is 64 bits where kevo builds (LP64), as int64_t is: all three name a 64-bit label's type
        Map<String, String> known = Map.ofEntries(Map.entry("KEVO_X", dtype.x().cudaType()),
                Map.entry("KEVO_Y", dtype.y().cudaType()), Map.entry(Dtype.FP32.cudaType(), Dtype.FP32.cudaType()),
                Map.entry(Dtype.BF16.cudaType(), Dtype.BF16.cudaType()),
                Map.entry(Dtype.FP16.cudaType(), Dtype.FP16.cudaType()), Map.entry("double", "double"),
                Map.entry("int", "int"), Map.entry("int32_t", "int"), Map.entry("long long", "long long"),
                Map.entry("long", "long long"), Map.entry("int64_t", "long long"));
        return Optional.ofNullable(known.get(base));
    }

    /** One parameter: its type without its name, and where it starts in the source. */
    private record Param(String type, int offset) {
    }

    /**
     * Every {@code __global__} function's parameters by name, in one pass over the file (a rendered genome holds a
     * library of templates and a score of kernels). A declaration whose {@code __launch_bounds__} nests parentheses
     * is not found, so not judged.
     */
    private static Map<String, List<Param>> kernels(String code) {
        Map<String, List<Param>> out = new HashMap<>();
        Matcher m = DECLARATION.matcher(code);
        while (m.find()) {
            out.putIfAbsent(m.group(1), split(code, m.end()));
        }
        return out;
    }

    /** The comma-separated parameters from {@code open} (just past the '(') to its matching ')'. */
    private static List<Param> split(String code, int open) {
        List<Param> out = new ArrayList<>();
        int depth = 0;
        int start = open;
        for (int i = open; i < code.length(); i++) {
            char c = code.charAt(i);
            if (c == '(' || c == '<' || c == '[') {
                depth++;
            } else if ((c == ')' || c == '>' || c == ']') && depth > 0) {
                depth--;
            } else if (c == ',' || c == ')') {
                out.add(param(code, start, i));
                if (c == ')') {
                    break;
                }
                start = i + 1;
            }
        }
        return out;
    }

    /** A parameter without its name: {@code const float* __restrict__ x} gives {@code const float* __restrict__}. */
    private static Param param(String code, int from, int to) {
        String text = code.substring(from, to);
        int lead = text.length() - text.stripLeading().length();
        String type = text.strip().replaceFirst("\\s*\\b[A-Za-z_]\\w*$", "").strip();
        return new Param(type.replaceAll("\\s+", " "), from + lead);
    }
}
