package dev.kevo.export;

import dev.kevo.data.MaskKind;
import dev.kevo.store.SourceHash;
import dev.kevo.task.KernelFile;
import dev.kevo.task.op.Tensor;
import java.util.Locale;
import java.util.stream.Collectors;

/** The README of an exported package: what it is, where it came from, how to build and call it. */
final class ExportReadme {
    private ExportReadme() {
    }

    static String render(KernelFile file, ExportTarget target, Provenance p, ApiText api, boolean deviceState) {
        OperatorApi op = api.api();
        StringBuilder out = new StringBuilder();
        out.append("# kevo ").append(op.function()).append(": ").append(file.name()).append("\n\n");
        if (!file.description().isBlank()) {
            out.append(file.description()).append("\n\n");
        }
        out.append("Exported by ").append(p.exportedBy()).append(" on ").append(p.exportedAt()).append(" as `")
                .append(target.id()).append("`. `").append(api.formula()).append("` ").append(api.where())
                .append(".\n\n");
        provenance(out, p);
        out.append("\n## Files\n\n| file | what |\n| --- | --- |\n");
        out.append("| `").append(op.source()).append("` | the host launcher: loads the judged cubin, chooses the plan, "
                + "launches |\n");
        out.append("| `").append(op.header()).append("` | the C API |\n");
        out.append("| `").append(op.planHeader()).append("` | the launch plan as host C++, generated from kevo's parsed "
                + "plan (no CUDA needed) |\n");
        if (target == ExportTarget.TORCH) {
            out.append("| `").append(op.torchBinding()).append("` | the PyTorch binding: `").append(api.pySignature())
                    .append("` |\n");
            out.append("| `setup.py`, `example.py` | build it with setuptools, or load it in place and check it |\n");
            if (op.loss()) {
                out.append("| `").append(op.lossModule()).append("` | the loss function with its backward "
                        + "(`torch.autograd.Function`) over the op |\n");
            }
        } else {
            out.append("| `example.cu` | a program that calls it and checks it against kevo's float64 reference of ")
                    .append(op.function()).append(" |\n");
        }
        out.append("| `").append(op.cubinHeader()).append("` | the cubin kevo judged, which the launcher loads: the "
                + "package builds no kernel from source |\n");
        out.append("| `").append(op.kernels()).append("` | the source that cubin was compiled from, to read (not "
                + "built) |\n");
        out.append("| `kevo-export.json` | where it came from, and where it runs each plan (`plans`) |\n");
        String most = String.format(Locale.ROOT, "%,d", p.size().maxElements());
        judgedEnvelope(out, p);
        if (target == ExportTarget.TORCH) {
            torch(out, api, most);
        }
        cpp(out, target, api, most);
        plan(out, file);
        semantics(out, op, deviceState);
        return out.toString();
    }

    private static String inputs(OperatorApi op) {
        return op.inputs().stream().map(Tensor::name).collect(java.util.stream.Collectors.joining(", "));
    }

    /** What the package runs, plan by plan, and what it refuses: kevo's claims are per plan. */
    private static void judgedEnvelope(StringBuilder out, Provenance p) {
        out.append("\n## What it runs\n\n");
        out.append("The package runs the cubin kevo judged (").append(p.build().compiler()).append(", `")
                .append(p.build().arch()).append("`, SHA-256 `").append(p.build().sha256()).append("`), on a device of ")
                .append("that architecture only, and each plan only within what kevo judged it on; any other shape, ")
                .append("device or multiprocessor count is refused with an error saying why.\n\n");
        out.append("| plan | runs | on shapes of at most | at SM counts |\n| --- | --- | --- | --- |\n");
        for (PlanEnvelope.Entry e : p.plans()) {
            out.append("| ").append(e.plan()).append(" | ").append(e.runs() ? "yes" : "no: " + e.why()).append(" | ")
                    .append(e.runs() ? String.format(Locale.ROOT, "%,d elements", e.maxElements()) : "-").append(" | ")
                    .append(e.runs() ? e.sms().stream().map(String::valueOf).collect(java.util.stream.Collectors
                            .joining(", ")) : "-").append(" |\n");
        }
    }

    private static void provenance(StringBuilder out, Provenance p) {
        out.append("## Where it comes from\n\n");
        out.append("- source: `").append(p.source()).append("`, kevo source hash `").append(p.sourceHash()).append("`\n");
        out.append(String.format(Locale.ROOT, "- shapes of up to %,d elements: %s%n", p.size().maxElements(),
                p.size().why()));
        if (p.sanitized() != null) {
            out.append("- compute-sanitizer (").append(p.sanitized().sanitizer()).append(") on ")
                    .append(p.sanitized().device()).append(", ").append(p.sanitized().date()).append(": ")
                    .append(p.sanitized().line()).append("\n");
        }
        Provenance.Judged j = p.judged();
        if (j == null) {
            out.append("- **").append(p.note()).append("**\n");
            return;
        }
        out.append("- campaign `").append(j.campaign()).append("` (kevo ").append(j.campaignKevoVersion())
                .append("), mutant `").append(j.mutantId()).append("`\n");
        out.append("- judged on ").append(j.device() == null ? "an unrecorded device" : j.device()).append(": ")
                .append(j.verdict());
        if (j.score() != null) {
            out.append(String.format(Locale.ROOT, ", score %.3fx over `%s` on the `%s` suite, memory floor %.2f",
                    j.score(), j.baseline(), j.suite(), j.floorFraction() == null ? Double.NaN : j.floorFraction()));
        }
        out.append("\n");
        if (!j.sourceMatches()) {
            out.append(SourceHash.isLegacy(j.recordedSourceHash())
                    ? "- **recorded under a legacy source hash** (`" + j.recordedSourceHash() + "`, comments stripped): "
                    + "kevo cannot tie the numbers below to this file; re-judge it\n"
                    : "- **the source differs from the one judged** (recorded hash `" + j.recordedSourceHash()
                    + "`): the numbers below are not this file's\n");
        }
        if (!j.shapes().isEmpty()) {
            out.append("\n| shape | plan | time (us) | baseline (us) | speedup | floor |\n| --- | --- | --- | --- | --- | --- |\n");
            for (Provenance.ShapeTime s : j.shapes()) {
                out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", s.shape(),
                        s.plan() == null ? "-" : s.plan(), num(s.timeUs(), "%.1f"), num(s.baselineUs(), "%.1f"),
                        num(s.speedup(), "%.2fx"), num(s.floorFraction(), "%.2f")));
            }
        }
    }

    private static String num(Double v, String format) {
        return v == null ? "-" : String.format(Locale.ROOT, format, v);
    }

    private static void torch(StringBuilder out, ApiText api, String most) {
        OperatorApi op = api.api();
        if (op.attention()) {
            attentionTorch(out, api, most);
            return;
        }
        if (op.loss()) {
            lossTorch(out, api, most);
            return;
        }
        String dtypes = ApiText.and(op.inputs().stream().map(t -> ExportTypes.python(t.dtype(api.dtype()))).distinct()
                .toList());
        // "a contiguous torch.float32 CUDA tensor" for one input, "contiguous ... tensors" for several
        String tensors = op.inputs().size() == 1 ? "a contiguous " + dtypes + " CUDA tensor"
                : "contiguous " + dtypes + " CUDA tensors of one shape";
        out.append(TORCH_BUILD).append("""

                ```python
                import torch, MODULE
                OUTPUTS = MODULE.FN(INPUTS)    # INPUTS: TENSORS; dim=-1 only
                ```

                `FN(INPUTS, dim=-1)` works over the last dimension of TENSORS of any rank (the leading
                dimensions are the rows) and raises a `RuntimeError` that says why for anything else: another dtype,
                device or dimension, a non-contiguous or misaligned view, more than MOST elements (see where it comes
                from) or 2^31-1 rows or columns, or a shape the plan does not cover. It returns RETURNS and runs on
                `torch.cuda.current_stream()` on the inputs' device; the workspace (if the plan has one) comes from
                torch's caching allocator on that device and stream. Set `TORCH_CUDA_ARCH_LIST` to the GPUs you build
                for.
                """.replace("MODULE", op.prefix()).replace("OUTPUTS", outputs(op, t -> t.name()))
                .replace("INPUTS", inputs(op)).replace("FN", op.function()).replace("TENSORS", tensors)
                .replace("RETURNS", outputs(op, t -> t.name() + " in " + ExportTypes.python(t.dtype(api.dtype()))))
                .replace("MOST", most));
    }

    /** The torch op of a loss (cross_entropy): the op itself, and the loss function with its backward over it. */
    private static void lossTorch(StringBuilder out, ApiText api, String most) {
        OperatorApi op = api.api();
        String x = ExportTypes.python(op.op().rowInputs().getFirst().dtype(api.dtype()));
        out.append(TORCH_BUILD).append("""

                ```python
                import torch, MODULE, MODULE_loss
                dx, loss = MODULE.FN(x, labels, g)     # x: X CUDA logits, labels: torch.int64, g: a float
                loss_fn = MODULE_loss.loss_function(MODULE)
                loss = loss_fn(x, labels)              # as F.cross_entropy; loss.backward() fills x.grad
                ```

                `FN(x, labels, g, dim=-1)` takes contiguous CUDA logits x of any rank (the leading dimensions are
                the rows, the last the vocabulary) and labels of x's shape without its last dimension, each in
                `[0, cols)` or -100 (ignored). It returns dx, of x's shape and dtype, `g` times the gradient of the
                loss, and the loss (REDUCTION over the rows not ignored), a 0-dimensional `torch.float32` tensor
                (NO_ROW when every row is ignored, as torch gives), written in one pass. It raises a `RuntimeError` that says why
                for anything else: another dtype, device, dimension or shape, a non-contiguous or misaligned view,
                more than MOST elements (see where it comes from) or 2^31-1 rows or columns, or a shape the plan does
                not cover. It runs on `torch.cuda.current_stream()` on x's device; the workspace comes from torch's
                caching allocator there.

                `MODULE_loss.loss_function(MODULE)` is the loss as training calls it: its forward runs the op with
                g = 1 and keeps dx, and its backward scales dx by the incoming gradient. Set `TORCH_CUDA_ARCH_LIST`
                to the GPUs you build for.
                """.replace("MODULE", op.prefix()).replace("FN", op.function()).replace("MOST", most)
                .replace(" X ", " " + x + " ").replace("REDUCTION", Examples.reduction(op).equals("sum")
                        ? "the sum" : "the mean").replace("NO_ROW", Examples.reduction(op).equals("sum") ? "0" : "NaN"));
    }

    private static final String TORCH_BUILD = """

            ## PyTorch

            ```sh
            TORCH_CUDA_ARCH_LIST=9.0 pip install .      # or: python setup.py build_ext --inplace
            python example.py                           # or build in place with torch.utils.cpp_extension.load (needs ninja)
            ```
            """;

    /**
     * The torch op of an operator of attention shapes: x's layout, the mask kind by name, the scalars, and the tensors
     * a mask brings, each given only under a kind that reads it ({@link ApiText#pySignature}).
     */
    private static void attentionTorch(StringBuilder out, ApiText api, String most) {
        OperatorApi op = api.api();
        Tensor x = op.inputs().getFirst();
        String scalars = op.scalars().stream().map(s -> s.name() + ", ").collect(Collectors.joining());
        StringBuilder calls = new StringBuilder();
        StringBuilder tensors = new StringBuilder();
        for (MaskKind kind : op.op().maskKinds()) {
            String read = op.inputs().stream().filter(t -> t != x && ApiText.readBy(t).contains(kind))
                    .map(t -> ", " + t.name() + "=" + t.name()).collect(Collectors.joining());
            calls.append(outputs(op, Tensor::name)).append(" = ").append(op.prefix()).append('.').append(op.function())
                    .append('(').append(x.name()).append(", ").append(scalars).append("mask_kind=\"").append(kind.id())
                    .append('"').append(read).append(")\n");
        }
        for (Tensor t : op.inputs()) {
            if (t == x) {
                continue;
            }
            String type = api.pythonType(t);
            tensors.append("- `").append(t.name()).append("`, read only under ").append(ApiText.and(ApiText.readBy(t)
                    .stream().map(k -> "`mask_kind=\"" + k.id() + "\"`").toList())).append(" and `None` under the "
                    + "others: a contiguous ").append(type).append(" CUDA tensor on `").append(x.name())
                    .append("`'s device, ").append(switch (t.extent()) {
                        case BATCH -> "of shape `[batch]`, one entry per batch entry; keys at or past `" + t.name()
                                + "[b]` are masked. Its values must lie in 0..keys, as kevo judged the kernel: they are "
                                + "not checked, since reading them would wait for the GPU.";
                        case BATCH_QUERIES_KEYS -> "of shape `[batch, queries, keys]` (or `[batch, 1, queries, keys]`, "
                                + "as Hugging Face passes an attention mask), broadcast over heads: an entry of `-inf` "
                                + "or `torch.finfo(dtype).min` masks its key, any other is added to the scaled score.";
                        case ROWS_COLS -> "of x's shape.";
                        case ROWS, ONE -> throw new IllegalStateException(t.name() + ": no export takes a tensor of "
                                + "extent " + t.extent() + " (OperatorApi.unsupported)");
                    }).append('\n');
        }
        out.append(TORCH_BUILD).append("""

                ```python
                import torch, MODULE
                CALLS```

                `SIGNATURE` works over the last dimension (the keys) of `X`, a contiguous XTYPE CUDA tensor of
                4 dimensions `[batch, heads, queries, keys]` (rows = batch * heads * queries of keys columns), masked as
                `mask_kind` says: MASKS. SCALARS
                TENSORS
                A key the mask kind masks is 0 in RETURNS, and a row with no key left (fully masked) is 0 throughout, as
                PyTorch's SDPA writes it (`torch.softmax` alone gives NaN there). Anything else raises a `RuntimeError`
                that says why: another dtype or device, a rank other than 4, `dim` other than -1 (or 3), a
                non-contiguous or misaligned view, an unknown `mask_kind`, a tensor its kind reads missing or one it
                does not read given, a tensor of another shape, a non-finite float, more than MOST elements (see where
                it comes from) or 2^31-1 rows or keys, or a shape or multiprocessor count no plan was judged at (an
                argument of the wrong Python type, such as `mask_kind=1`, is pybind's `TypeError`). It runs
                on `torch.cuda.current_stream()` on x's device; the workspace (if the plan has one) comes from torch's
                caching allocator on that device and stream. Set `TORCH_CUDA_ARCH_LIST` to the GPUs you build for.
                """.replace("MODULE", op.prefix()).replace("CALLS", calls).replace("SIGNATURE", api.pySignature())
                .replace("XTYPE", ExportTypes.python(x.dtype(api.dtype()))).replace("MASKS", ApiText.and(op.op()
                        .maskKinds().stream().map(k -> "`\"" + k.id() + "\"`").toList()))
                .replace("SCALARS", op.scalars().isEmpty() ? "" : ApiText.and(op.scalars().stream()
                        .map(s -> "`" + s.name() + "`").toList()) + " is a Python float, passed to the kernel as a "
                        + "float32.")
                .replace("TENSORS", tensors).replace("RETURNS", outputs(op, t -> "`" + t.name() + "` ("
                        + ExportTypes.python(t.dtype(api.dtype())) + ", x's shape)"))
                .replace("`X`", "`" + x.name() + "`").replace("MOST", most));
    }

    private static String outputs(OperatorApi op, java.util.function.Function<Tensor, String> each) {
        return ApiText.and(op.outputs().stream().map(each).toList());
    }

    private static void cpp(StringBuilder out, ExportTarget target, ApiText api, String most) {
        OperatorApi op = api.api();
        out.append(target == ExportTarget.TORCH ? "\n## The C API underneath\n" : "\n## Build and call\n");
        out.append("""

                ```sh
                nvcc -O3 -std=c++17 -c PREFIX.cu            # host code only: the kernels are the judged cubin
                nvcc -O3 -std=c++17 -o example example.cu PREFIX.cu && ./example EXAMPLE_SHAPES
                ```

                ```c++
                #include "PREFIX.h"
                cudaError_t e = PREFIX(TENSORS, SHAPE, stream);   // device pointers, row-major ROWS
                if (e != cudaSuccess) fprintf(stderr, "%s\\n", PREFIX_last_error());
                ```

                - `PREFIX` allocates the plan's workspace per call with `cudaMallocAsync` on the stream and frees
                  it after the launches. To own it instead: `PREFIX_workspace_size(SHAPE, &bytes)`, then
                  `PREFIX_with_workspace(TENSORS, SHAPE, ws, bytes, stream)` (256-byte aligned, as
                  `cudaMalloc` gives). Its contents are undefined at each call and need no clearing.
                - LIST must be 16-byte aligned and must not overlap (kevo judged the kernel so); rows and cols
                  at least 1, at most MOST elements (see where it comes from).
                ATTENTION- Errors come back as a `cudaError_t`, never as a hang, with one line in `PREFIX_last_error()`
                  (per thread): `cudaErrorInvalidValue` for a shape no plan covers or a plan expression that fails
                  (as in kevo), `cudaErrorCooperativeLaunchTooLarge` for a cooperative grid that cannot be resident
                  at once (checked with the occupancy API before launching), `cudaErrorInvalidClusterSize` for a
                  thread-block cluster that cannot be resident at all, `cudaErrorInvalidConfiguration` for a block
                  over the kernel's limit, `cudaErrorNoKernelImageForDevice` on a GPU of another architecture than the
                  cubin's, or the launch's own error.
                - No kernel is compiled here: `PREFIX.cu` is host code that loads the cubin kevo judged
                  (`PREFIX_cubin.h`, with `cudaLibraryLoadData`; CUDA 12.0 or later). Another compiler, or
                  another version, would make other code from `PREFIX_kernels.cu`, which kevo never judged.
                """.replace("ATTENTION", op.attention() ? """
                - The rows are attention's: x is `[batch, heads, queries, keys]`, rows = batch * heads * queries of
                  `keys` columns, and `mask_kind` says how they are masked: MASKS. A tensor the kind does not read
                  may be null. A row with no key left (fully masked) is written 0, as PyTorch's SDPA writes it
                  (`torch.softmax` would give NaN there).
                """.replace("MASKS", api.masks()) : "")
                .replace("EXAMPLE_SHAPES", op.attention() ? "2x8x128x128:causal 1x16x1x8192:padding"
                        : "4096x4096 1x1000000")
                .replace("SHAPE", api.shapeArgs()).replace("ROWS", op.attention()
                        ? "[batch, heads, queries, keys]" : "rows x cols")
                .replace("PREFIX", op.prefix()).replace("TENSORS", api.callArgs()).replace("LIST", ApiText.and(op.tensors().stream()
                .map(t -> "`" + t.name() + "`").toList()))
                .replace("MOST", most));
    }

    private static void plan(StringBuilder out, KernelFile file) {
        out.append("\n## The launch plan\n\n`sms` is read from the device (`cudaDevAttrMultiProcessorCount`); the first plan whose `when` holds runs.\n\n");
        out.append("| plan | when | launches |\n| --- | --- | --- |\n");
        for (int p = 0; p < file.plans().size(); p++) {
            KernelFile.Plan plan = file.plans().get(p);
            StringBuilder launches = new StringBuilder();
            for (KernelFile.Launch l : plan.launches()) {
                launches.append(launches.isEmpty() ? "" : "; ").append('`').append(l.kernel()).append("` grid `")
                        .append(l.grid().text()).append("`, block `").append(l.block().text()).append('`');
                if (!"0".equals(l.smem().text())) {
                    launches.append(", smem `").append(l.smem().text()).append('`');
                }
                if (l.cooperative()) {
                    launches.append(", cooperative");
                }
                if (!"1".equals(l.cluster().text())) {
                    launches.append(", clusters of `").append(l.cluster().text()).append("` blocks");
                }
            }
            out.append("| ").append(p + 1).append(" | `").append(plan.when().text().replace("|", "\\|"))
                    .append("` | ").append(launches.toString().replace("|", "\\|")).append(" |\n");
        }
        out.append("\nworkspace: `").append(file.workspace().text()).append("` bytes\n");
    }

    private static void semantics(StringBuilder out, OperatorApi op, boolean deviceState) {
        out.append("""

                ## How the plan is evaluated

                `PLAN` is generated from kevo's own parse of the header: each expression becomes a
                function with the same grouping, `/` and `%` truncating like C, `cdiv` rounding up, `min`/`max`,
                comparisons, and `&&`/`||` evaluating both sides as kevo does. Constant parts are folded by kevo's own
                evaluator. kevo computes exactly; this code computes in 64-bit integers and returns an error (never a
                wrapped value) where an intermediate value leaves them. A division by zero or a value out of kevo's
                bounds (grid 1..2^31-1, block 1..1024, smem 0..2^31-1, workspace 0..16 GiB, int arguments) is an error,
                as in kevo. kevo's tests compare this code with kevo's resolution on every suite shape and random ones.
                """.replace("PLAN", op.planHeader()));
        if (deviceState) {
            out.append("""

                    ## State in `__device__` variables

                    This kernel keeps state between launches in `__device__` variables (such as a grid barrier's
                    counter that every launch advances). In a normal CUDA build they are zero when the module loads
                    (at the first call on each device, in every process), as kevo loads them, and each launch leaves
                    them as the next one expects. They are shared by every call on a device: do not run two calls at
                    the same time on one device (on two streams, or from two threads with different streams); calls
                    queued on one stream, torch's current stream included, are safe.
                    """);
        }
    }
}
