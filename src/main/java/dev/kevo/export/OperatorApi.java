package dev.kevo.export;


import dev.kevo.KevoException;
import dev.kevo.data.MaskKind;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Scalar;
import dev.kevo.task.op.Task;
import dev.kevo.task.op.Tensor;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * How an exported package names and calls one operator, read from the operator itself: every C symbol, macro and
 * file starts with {@code kevo_<op>} ({@code kevo_softmax}, {@code kevo_log_softmax}), the torch function is the
 * operator's id (as {@code torch.softmax} and {@code torch.log_softmax} are named), and the parameters are the
 * operator's tensors in its order, each typed by its element, then its scalars. Nothing here knows a particular
 * operator: one with more tensors gets more parameters.
 */
record OperatorApi(Operator op) {

    /**
     * Names the generated code gives its own parameters beside the tensors' (the C API's and the torch op's), and
     * C++'s keywords: a tensor named like one of them could not be a parameter.
     */
    private static final Set<String> RESERVED = Set.of("rows", "cols", "stream", "workspace", "workspace_bytes",
            "bytes", "tensors", "outputs", "dim", "batch", "heads", "queries", "keys", "mask_kind", "shape", "scalars",
            "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
            "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr",
            "constinit", "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default",
            "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
            "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
            "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
            "register", "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
            "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
            "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
            "wchar_t", "while", "xor", "xor_eq",
            // Python's, for the torch op's keyword arguments
            "as", "assert", "async", "await", "def", "del", "elif", "except", "finally", "from", "global", "import",
            "in", "is", "lambda", "nonlocal", "pass", "raise", "with", "yield");

    /**
     * Why kevo cannot package {@code op} for {@code target} yet, in one line, or empty when it can. The C API passes
     * every tensor, scalar and attention variable. The torch op takes its first input's shape as the op's (any rank,
     * or attention's [batch, heads, queries, keys]), an input of one element per row (a loss's labels) of that shape
     * without its last dimension, the scalars as floats, and for an operator of attention shapes the mask kind by name
     * and the tensors a mask brings as optional ones ({@link ApiText#pySignature}); it returns outputs of the first
     * input's shape and of one element (a loss's value, 0-dimensional), and cannot say when a tensor of a mask's
     * extents is read without a mask kind.
     */
    static Optional<String> unsupported(Operator op, ExportTarget target) {
        Optional<String> unjudged = Task.unjudgedTensors(op);
        if (unjudged.isPresent()) {
            return Optional.of("kevo export packages only what kevo judges: " + unjudged.get());
        }
        if (target != ExportTarget.TORCH) {
            return Optional.empty();
        }
        List<String> missing = new ArrayList<>();
        List<Tensor> inputs = op.tensors().stream().filter(t -> t.role() == Tensor.Role.INPUT).toList();
        if (inputs.isEmpty() || inputs.getFirst().extent() != Tensor.Extent.ROWS_COLS) {
            missing.add("a first input of one element per row and column, whose shape is the op's");
        }
        boolean masked = op.maskKinds().stream().anyMatch(k -> k != MaskKind.NONE);
        op.tensors().stream().filter(t -> !takes(t, masked))
                .forEach(t -> missing.add((t.role() == Tensor.Role.OUTPUT ? "output" : "tensor") + " `" + t.name()
                        + "` (" + t.extent().name().toLowerCase(Locale.ROOT) + ")"));
        return missing.isEmpty() ? Optional.empty() : Optional.of("kevo export --to torch does not package " + op.id()
                + " yet: its torch op would lack " + String.join(", ", missing) + "; --to cpp exports it");
    }

    /** Whether the torch op takes (an input) or returns (an output) a tensor of t's extent. */
    private static boolean takes(Tensor t, boolean masked) {
        return switch (t.extent()) {
            case ROWS_COLS -> true;
            case ROWS -> t.role() == Tensor.Role.INPUT;
            case ONE -> t.role() == Tensor.Role.OUTPUT;
            case BATCH, BATCH_QUERIES_KEYS -> t.role() == Tensor.Role.INPUT && masked;
        };
    }

    /**
     * The API of {@code op}.
     *
     * @throws KevoException (input) where the operator's id or a tensor's or scalar's name cannot be a C identifier of
     *                       the package
     */
    static OperatorApi of(Operator op) {
        if (!op.id().matches("[a-z][a-z0-9_]*")) {
            throw KevoException.input("operator '" + op.id() + "': kevo export names a package's C functions and files "
                    + "after the operator's id, which must then be a lower-case identifier");
        }
        for (Tensor t : op.tensors()) {
            if (RESERVED.contains(t.name()) || t.name().equals(KernelFile.WORKSPACE)) {
                throw KevoException.input("operator " + op.id() + ": tensor '" + t.name() + "' cannot be a parameter "
                        + "of the exported C API and torch op (the name is taken)");
            }
        }
        for (Scalar s : op.scalars()) {
            if (RESERVED.contains(s.name()) || s.name().equals(KernelFile.WORKSPACE)
                    || op.tensors().stream().anyMatch(t -> t.name().equals(s.name()))) {
                throw KevoException.input("operator " + op.id() + ": scalar '" + s.name() + "' cannot be a parameter "
                        + "of the exported C API (the name is taken)");
            }
        }
        return new OperatorApi(op);
    }

    /** {@code kevo_<op>}: the C API's functions, its files, the Python module. */
    String prefix() {
        return "kevo_" + op.id();
    }

    /** {@code KEVO_<OP>}: the package's macros. */
    String macro() {
        return prefix().toUpperCase(Locale.ROOT);
    }

    /** The torch op's name, the module's one function: the operator's id. */
    String function() {
        return op.id();
    }

    /** The host launcher, the C API's definition. */
    String source() {
        return prefix() + ".cu";
    }

    /** The C API. */
    String header() {
        return prefix() + ".h";
    }

    /** The launch plan as host C++ ({@link PlanHeader}). */
    String planHeader() {
        return prefix() + "_plan.h";
    }

    /** The judged cubin as a byte array ({@link CubinHeader}). */
    String cubinHeader() {
        return prefix() + "_cubin.h";
    }

    /** The kernel file as the judged cubin was compiled from it: for reading, not built. */
    String kernels() {
        return prefix() + "_kernels.cu";
    }

    /** The PyTorch binding. */
    String torchBinding() {
        return prefix() + "_torch.cpp";
    }

    /** A loss's torch package: the loss function with its backward, over the binding's op ({@link #loss()}). */
    String lossModule() {
        return prefix() + "_loss.py";
    }

    /** Whether the operator is a loss: an output of one element, its value ({@link Operator#reducedOutput}). */
    boolean loss() {
        return op.reducedOutput().isPresent();
    }

    /** The operator's tensors in its order: the C API's pointer parameters, in that order. */
    List<Tensor> tensors() {
        return op.tensors();
    }

    /** The tensors the caller passes in: the torch op's parameters, in the operator's order. */
    List<Tensor> inputs() {
        return op.tensors().stream().filter(t -> t.role() == Tensor.Role.INPUT).toList();
    }

    /** The tensors the package writes: what the torch op returns, in the operator's order. */
    List<Tensor> outputs() {
        return op.tensors().stream().filter(t -> t.role() == Tensor.Role.OUTPUT).toList();
    }

    /** The operator's runtime floats, in its order: the C API's float parameters after the tensors. */
    List<Scalar> scalars() {
        return op.scalars();
    }

    /**
     * Whether the shape is attention's ({@code batch x heads x queries} rows of {@code keys} columns, a mask kind):
     * for an operator whose plans may name the layout or whose shapes may be masked. Its C API takes the layout
     * instead of rows and cols, so a plan sees what kevo's evaluator gave it.
     */
    boolean attention() {
        return !op.planVariables().isEmpty() || op.maskKinds().stream().anyMatch(k -> k != MaskKind.NONE);
    }

    /**
     * Where a launch's buffer argument comes from, by the name a plan passes it as: the tensors in the operator's
     * order, then its scalars, then the workspace. The launcher hands the kernel the address of each slot's value,
     * whatever its type: a device pointer's, or a scalar's float.
     */
    List<String> slots() {
        List<String> slots = new ArrayList<>(op.tensors().stream().map(Tensor::name).toList());
        op.scalars().forEach(s -> slots.add(s.name()));
        slots.add(KernelFile.WORKSPACE);
        return List.copyOf(slots);
    }

    /** The slot of a buffer a plan passes by {@code name}. */
    int slot(String name) {
        int index = slots().indexOf(name);
        if (index < 0) {
            throw new IllegalStateException(op.id() + " has no tensor or scalar '" + name + "' (the contract parser "
                    + "admits only the operator's tensors, scalars and ws)");
        }
        return index;
    }
}
