package dev.kevo.export;


import dev.kevo.KevoException;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Operator;
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
 * operator's tensors in its order, each typed by its element. Nothing here knows a particular operator: one with more
 * tensors gets more parameters.
 */
record OperatorApi(Operator op) {

    /**
     * Names the generated code gives its own parameters beside the tensors' (the C API's and the torch op's), and
     * C++'s keywords: a tensor named like one of them could not be a parameter.
     */
    private static final Set<String> RESERVED = Set.of("rows", "cols", "stream", "workspace", "workspace_bytes",
            "bytes", "tensors", "outputs", "dim",
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
     * The API of {@code op}.
     *
     * @throws KevoException (input) where the operator's id or a tensor's name cannot be a C identifier of the package
     */
    /**
     * Why kevo cannot package {@code op} yet, in one line, or empty when it can: the exported C API and torch op pass
     * tensors of one element per (row, column) and nothing else, so an operator with a runtime scalar or a tensor of
     * another extent (masked_softmax's scale, lengths and mask) would lose arguments its kernels read.
     */
    static Optional<String> unsupported(Operator op) {
        Optional<String> unjudged = Task.notJudgedYet(op);
        if (unjudged.isPresent()) {
            return Optional.of("kevo export packages only what kevo judged: " + unjudged.get());
        }
        List<String> missing = new java.util.ArrayList<>();
        op.scalars().forEach(s -> missing.add("scalar `" + s.name() + "`"));
        op.tensors().stream().filter(t -> t.extent() != Tensor.Extent.ROWS_COLS)
                .forEach(t -> missing.add("tensor `" + t.name() + "` (" + t.extent().name().toLowerCase(Locale.ROOT)
                        + ")"));
        return missing.isEmpty() ? Optional.empty() : Optional.of("kevo export does not package " + op.id()
                + " yet: its exported API would lack " + String.join(", ", missing) + "; kevo eval judges it");
    }

    static OperatorApi of(Operator op) {
        unsupported(op).ifPresent(why -> {
            throw KevoException.input(why);
        });
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

    /**
     * Where a launch's buffer argument comes from, by the name a plan passes it as: the tensors in the operator's
     * order, then the workspace. A runtime value the caller passes (a scale) would be one more slot: the launcher
     * hands the kernel the address of each slot's value, whatever its type.
     */
    List<String> slots() {
        List<String> slots = new ArrayList<>(op.tensors().stream().map(Tensor::name).toList());
        slots.add(KernelFile.WORKSPACE);
        return List.copyOf(slots);
    }

    /** The slot of a buffer a plan passes by {@code name}. */
    int slot(String name) {
        int index = slots().indexOf(name);
        if (index < 0) {
            throw new IllegalStateException(op.id() + " has no tensor '" + name + "' (the contract parser admits "
                    + "only the operator's tensors and ws)");
        }
        return index;
    }
}
