package dev.kevo.export;

import dev.kevo.KevoException;
import dev.kevo.data.Precision;
import dev.kevo.task.op.Operator;
import dev.kevo.task.op.Operators;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A forward operator's torch package and its gradient's, joined for training: both extensions (each its own module,
 * its own judged cubin, plan table and envelope, as each alone would ship), one setup.py that builds both, a
 * {@code torch.autograd.Function} whose backward is the gradient's kernel ({@code <prefix>_autograd.py}), and
 * train_check.py, which checks x.grad through it against torch's autograd in float64 and times a training step beside
 * torch. The gradient's own provenance is kept as {@value #BACKWARD_PROVENANCE}.
 */
public final class TrainingPackage {

    public static final String BACKWARD_PROVENANCE = "kevo-export-backward.json";

    /** The gradient package's files the joined package does not take: the forward's, or the joined ones, stand. */
    private static final Set<String> REPLACED = Set.of("setup.py", "example.py", "README.md");

    private TrainingPackage() {
    }

    /**
     * Why {@code backward} cannot be joined to {@code forward} for training in {@code dtype}, in one line, or empty
     * when it can.
     */
    public static Optional<String> mismatch(Operator forward, Operator backward, Precision dtype) {
        if (backward.gradientOf().filter(forward::equals).isEmpty()) {
            return Optional.of("--backward takes a kernel of " + forward.id() + "'s gradient, not of " + backward.id()
                    + (backward.gradientOf().isPresent() ? " (the gradient of " + backward.gradientOf().get().id() + ")"
                    : ""));
        }
        if (dtype.x() != dtype.y()) {
            return Optional.of("--backward joins a forward and its gradient in one dtype for x and y (fp32, bf16 or "
                    + "fp16), as autograd passes them: not " + dtype.id());
        }
        return Optional.empty();
    }

    /**
     * The joined package: {@code forward}'s files, then {@code backward}'s (their own names, bar those
     * {@link #REPLACED}), setup.py for both, the autograd module, train_check.py and a README section on training.
     * Both are in the forward's dtype.
     *
     * @throws KevoException (input) where {@link #mismatch} says why not, or the two were exported in other dtypes
     */
    public static ExportPackage join(ExportPackage forward, ExportPackage backward, String kevoVersion) {
        Operator fop = Operators.byId(forward.provenance().op());
        Operator bop = Operators.byId(backward.provenance().op());
        Precision dtype = Precision.parse(forward.provenance().dtype());
        mismatch(fop, bop, dtype).ifPresent(why -> {
            throw KevoException.input(why);
        });
        if (!forward.provenance().dtype().equals(backward.provenance().dtype())) {
            throw KevoException.input("--backward's kernel is exported in " + backward.provenance().dtype()
                    + ", the forward in " + forward.provenance().dtype() + ": give both the same --dtype");
        }
        if (forward.target() != ExportTarget.TORCH || backward.target() != ExportTarget.TORCH) {
            throw new IllegalArgumentException("a training package joins two torch packages");
        }
        OperatorApi f = OperatorApi.of(fop);
        OperatorApi b = OperatorApi.of(bop);
        Map<String, String> slots = new LinkedHashMap<>();
        slots.put("FP", f.prefix());
        slots.put("BP", b.prefix());
        slots.put("FN", f.function());
        slots.put("BN", b.function());
        slots.put("CLASS", "Kevo" + camel(f.function()) + "Function");
        slots.put("TORCH_DTYPE", ExportTypes.python(dtype.x()));
        // the gradient example's bound (ABS_TOL of dy's scale; REL_TOL, the relative bound of 0 widened by dx's
        // rounding to its type), to which the check adds what torch's own autograd is off
        slots.putAll(ExampleTolerance.of(bop.tolerance(), dtype.y()).slots());
        slots.put("PY_HELPERS", "\n\n" + TorchReference.of(bop).orElseThrow().definition() + Examples.PY_STEP_TIME);
        slots.put("VERSION", kevoVersion.matches("\\d+(\\.\\d+)*") ? kevoVersion : "0.0.0");
        slots.put("DOC", "kevo " + f.function() + " and its gradient for training: " + forward.provenance().kernel()
                + " and " + backward.provenance().kernel());
        Map<String, String> files = new LinkedHashMap<>(forward.files());
        backward.files().forEach((name, text) -> {
            if (name.equals(ExportPackage.PROVENANCE)) {
                files.put(BACKWARD_PROVENANCE, text);
            } else if (!REPLACED.contains(name)) {
                files.put(name, text);
            }
        });
        files.put("setup.py", Template.fill("setup_training.py", slots));
        files.put(f.prefix() + "_autograd.py", Template.fill("autograd.py", slots));
        files.put("train_check.py", Template.fill("train_check.py", slots));
        files.put("README.md", forward.files().get("README.md") + training(f, b, backward.provenance()));
        return new ExportPackage(forward.target(), forward.provenance(), files);
    }

    /** The README's section on training: what the autograd module joins, and how to check it. */
    private static String training(OperatorApi f, OperatorApi b, Provenance backward) {
        return "\n## Training: " + f.function() + " with kevo's gradient\n\n"
                + "This package also holds `" + b.prefix() + "`, kevo's " + b.function() + " (" + backward.kernel()
                + ", " + ExportPackage.origin(backward) + "; its record is `" + BACKWARD_PROVENANCE + "`), and `"
                + f.prefix() + "_autograd.py`, which joins the two in one `torch.autograd.Function`:\n\n"
                + "```python\nfrom " + f.prefix() + "_autograd import " + f.function() + "\ny = " + f.function()
                + "(x)          # kevo's forward; saves y\nloss(y).backward()  # x.grad from kevo's " + b.function()
                + "(y, dy)\n```\n\n"
                + "`pip install .` builds both extensions; without it the module builds them in place on first import "
                + "(needs ninja). `python train_check.py` checks x.grad against torch's autograd in float64 and times a "
                + "training step beside torch's own " + f.function() + ". Each kernel runs only where kevo judged it: "
                + "the backward's plans and shapes are in `" + BACKWARD_PROVENANCE + "`.\n";
    }

    private static String camel(String id) {
        StringBuilder out = new StringBuilder();
        for (String part : id.split("_")) {
            if (!part.isEmpty()) {
                out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
            }
        }
        return out.toString();
    }
}
