#!/usr/bin/env python3
"""The family benchmark (issues 42 and 43): for each job, an operator of kevo's softmax family in one dtype pair on
one suite, kevo's kernel file beside torch's own op, a Triton kernel written for the op and the memory floor, on
every shape of the suite, in one process on one GPU.

Everything is timed as compare_torch.py times it (kevo_bench.py: CUDA events, L2 flushed before each launch, the GPU
kept busy while the host enqueues, kevo, torch, Triton and the floor's two copies interleaved round by round in a
rotating order, medians with 95% intervals by order statistics). The kevo file is compiled with NVRTC and launched by
its own /*@kevo plan, as kevo compiles and launches it. Before anything is timed, each output (kevo's, torch's,
Triton's) is checked against the op's float64 reference with the op's tolerance as kevo's evaluator holds it: kevo's,
if it fails, is not timed; a peer's is timed all the same and its failure shown, as kevo's evaluator does with its
vendor baseline.

The floor is the faster of two copies (torch's copy_, a Triton copy kernel) of as many bytes as the op must move:
its inputs read once and its output written once (a mask included, when an op has one), half read and half written,
as in kevo's evaluator. For softmax and log_softmax in one dtype that is a copy of x into y; for masked_softmax, x,
y and the tensor the shape's mask kind reads (padding's lengths, additive's [batch, queries, keys] mask; nothing
more for none and causal); for cross_entropy and cross_entropy_sum, x and the int64 labels read, dx and the one
float32 loss written.

Suites are read as kevo reads them (SuiteFile): ROWSxCOLS or BATCHxHEADSxQUERIESxKEYS shapes, each with an optional
:KIND, and a suite's masks: list taking every shape that names no kind once per kind (evaluator/suites/attention.yaml:
8 shapes, 32 rows). A kevo file's plans see batch, heads, queries and mask_kind beside rows, cols and sms, and its
arguments are bound by name (x, lengths, mask, labels, y, dx, loss, scale, g, ws, or an expression).

Per shape the record gives the medians, three ratios (floor, torch's and Triton's median over kevo's: above 1 kevo
is faster; the first is kevo's floor fraction) and a verdict against each: faster, slower or a tie. A round times
every variant once, back to back, so a round pairs kevo with each peer: the verdict is read off the median of the
per-round ratios peer / kevo and its 95% interval by order statistics (the interval a sign test gives, free of any
assumption about the times' distribution): faster where the whole interval is above 1, slower where it is below 1,
a tie where it holds 1, i.e. where the rounds cannot tell the two apart.

Usage (GPU host with torch, Triton and NVRTC; from the repository root):
  KEVO_COMMIT=$(git rev-parse HEAD) python3 bench/family.py --out OUT.json \\
      --job softmax:fp32:KERNEL.cu:standard --job log_softmax:bf16:KERNEL.cu:evaluator/suites/llm.yaml ...
  python3 bench/family.py --out OUT.json --job masked_softmax:fp32:seeds/masked_softmax/online.cu:attention
  python3 bench/family.py --out OUT.json --jobs JOBS.yaml     (or .json)
A job is op:dtype:kernel:suite; a suite is a path or a name under evaluator/suites/. A jobs file holds
{"jobs": [{"op": ..., "dtype": ..., "kernel": ..., "suite": ...}, ...]}, each dtype and suite a name or a list
(the job on each dtype and suite of its lists); YAML needs PyYAML, JSON does not.
"""
import argparse, functools, json, math, os, struct, sys
from dataclasses import dataclass
from typing import Callable, Optional

# torch and kevo_bench (which imports Triton) are imported once the arguments are read, by load_gpu_modules(): --help
# and the jobs' parsing need neither. The registry below names them only inside functions called after that.
torch = None
kb = None
tce = None  # triton_cross_entropy: its @triton.jit kernel needs Triton at import

CHECK_ELEMENTS = 1 << 24  # the float64 check goes a block of rows at a time, about this many elements, to bound memory


def load_gpu_modules():
    global torch, kb, tce
    import torch as torch_module
    import kevo_bench
    import triton_cross_entropy
    torch, kb, tce = torch_module, kevo_bench, triton_cross_entropy


# ---- the operators ----
@dataclass(frozen=True)
class Op:
    """Everything that differs between the family's operators. Adding one (issue 43) is adding an entry to OPS, the
    key being kevo's op id, as a kernel file's header says it:

      masked_softmax      (here) inputs x, lengths or mask as the shape's kind reads them (the mask as stored, so its
                          bytes count in the floor) and the scale; torch: softmax(x.view(B,H,Q,K) * scale + bias, -1);
                          the reference kevo's, scores rounded to float32, masked keys and fully masked rows 0;
      softmax_backward    (here) inputs y (a softmax's output) and dy, output dx: torch._softmax_backward_data(dy,
                          y, -1, x's dtype); reference y * (dy - sum(dy * y)), held to dy's scale;
      log_softmax_backward  (here) inputs y (log-probabilities) and dy: torch._log_softmax_backward_data(dy, y, -1,
                          x's dtype); reference dy - exp(y) * sum(dy), held to dy's scale;
      cross_entropy       (here; its contract is docs/operators.md's "cross_entropy") inputs x, int64 labels (about
                          one row in eight -100, ignored) and g = 1, outputs dx and the mean loss, one float32, in one
                          plan, as training runs F.cross_entropy and its backward: torch: F.cross_entropy(x, labels)
                          and loss.backward() on a leaf in x's dtype; reference dx = g (p - onehot) / n in float64,
                          ignored rows' 0 exactly, held to softmax's bound times |g| / n (allowance), and the loss,
                          checked apart (check_more) against its scale, the mean of |max - x[label]| + log(sum) + 1;
      cross_entropy_sum   (here) cross_entropy with reduction='sum': / 1 where the mean has / n (no live row: 0).

    Every callable gets the suite shape (kevo_bench.Shape: rows, cols and, for an attention shape, batch, heads,
    queries and the mask kind) and the inputs, a dict of the operator's arguments by the names kevo's plans pass:
    tensors, None for a tensor the shape's mask kind does not read (a null pointer for kevo's kernel, not counted in
    the floor), and Python floats for runtime scalars (passed to kevo's kernel as C floats).
    """
    # (shape, x's torch dtype, generator) -> the inputs by the names kevo's plans pass ("x", ...)
    inputs: Callable
    # (inputs, y's torch dtype) -> the empty output that kevo's and Triton's kernels write
    output: Callable
    # torch's op: its name in the record, and (shape, inputs, y's dtype) -> a call of it as a user makes it, returning
    # a rows x cols view of its output, or (that view, {name: tensor}) for an op with more outputs (more_outputs)
    torch_name: str
    torch_call: Callable
    # (shape, inputs, a slice of rows) -> the float64 answer for those rows; or (answer, held exactly, rows with no
    # score left) where the op holds some answers exactly (a masked key's 0) and some rows are fully masked
    reference: Callable
    # kevo's tolerance for the op (docs/measurement.md): per element absolute + relative * |ref|, per case relative L2
    tolerance: tuple
    # the Triton kernel written for the op: its name in the record, and (shape, inputs, output, SMs, **more outputs by
    # name) -> a call of it
    triton_name: Optional[str] = None
    triton_call: Optional[Callable] = None
    # (shape) -> why the Triton kernel is not run on that shape, or None
    triton_refusal: Callable = lambda shape: kb.triton_rows_refusal(shape.cols)
    # the output's name in kevo's plans
    output_name: str = "y"
    # the mask kinds its suite shapes may name (kevo's Operator.maskKinds): none only, but for masked_softmax
    mask_kinds: tuple = ("none",)
    # whether torch's output is held to the reference on fully masked rows too; where its op defines them otherwise
    # (torch.softmax's NaN where every key is -inf), those rows are counted on its check instead of compared
    torch_on_empty_rows: bool = True
    # what the record says of the op's inputs and peers beyond their names
    note: Optional[str] = None
    # (shape, inputs, a slice of rows) -> each element's scale, where the op's absolute tolerance is a multiple of it
    # and a case's L2 error is relative to the scales' (the backward ops: |dy| + w(y) sum_row |term|,
    # docs/measurement.md); None: an absolute tolerance of 1 and the L2 error relative to the reference's
    scale: Optional[Callable] = None
    # (shape, inputs, a slice of rows, absolute, relative) -> (each element's allowance beyond one unit of the
    # output's type, each element's weight in the case's L2 norm), for an op whose bound is neither of the above:
    # cross_entropy's, softmax's on p carried onto dx by |g| / n, (absolute + relative p) |g| / n, and its L2 against
    # |g| / n (p + onehot), since at the label p - 1 cancels and its error is still p's (harness_cross_entropy.cu)
    allowance: Optional[Callable] = None
    # (inputs) -> the outputs beside y that kevo's and Triton's kernels write, by the names kevo's plans pass
    # (cross_entropy's one-element loss): bound with y, counted in the floor, and before a checked run filled with
    # -inf, not NaN, which is an answer there (the loss of a case with no live row)
    more_outputs: Callable = lambda inputs: {}
    # (op, shape, inputs, {name: the more outputs as an implementation gave them}) -> {name: a check with "ok"}, each
    # recorded in the implementation's check beside y's and failing it where not ok
    check_more: Optional[Callable] = None


def logits(shape, xt, gen):
    """x as compare_torch.py draws it, normal with standard deviation 4; the same x for every op at a shape."""
    return {"x": (torch.randn(shape.rows, shape.cols, device=gen.device, generator=gen) * 4).to(xt)}


def like_x(inputs, yt):
    return torch.empty(inputs["x"].shape, dtype=yt, device=inputs["x"].device)


def torch_rowwise(name):
    """torch.NAME(x, dim=-1) as a user calls it: it allocates its output, from torch's caching allocator; dtype= only
    where y is wider than x (bf16 logits, float32 out)."""
    def call(shape, inputs, yt):
        f, x = getattr(torch, name), inputs["x"]
        return (lambda: f(x, dim=-1)) if x.dtype == yt else (lambda: f(x, dim=-1, dtype=yt))
    return call


def torch_reference(name):
    """torch.NAME over float64 rows of x."""
    return lambda shape, inputs, rows: getattr(torch, name)(inputs["x"][rows].double(), dim=-1)


def triton_rowwise(kernel):
    """One of kevo_bench's one-program-a-row Triton kernels, launched as the tutorial launches its own."""
    def call(shape, inputs, y, sms):
        k = getattr(kb, kernel)
        return lambda: kb.triton_rows(k, inputs["x"], y, sms)
    return call


# ---- masked_softmax (docs/operators.md#masked_softmax) ----
# The scale of every shape: 1/sqrt(128), a head dimension of 128, as a float32 holds it (the kernels get a C float;
# the reference takes that float's value, as kevo's does). kevo's evaluator draws one of 1/sqrt(64, 80, 96, 128, 256)
# per input case; one is enough to time.
ATTENTION_SCALE = struct.unpack("f", struct.pack("f", 1 / math.sqrt(128)))[0]
ADDITIVE_MASKED = 0.3  # the share of an additive mask's keys masked, as kevo's ordinary cases draw it


def attention_inputs(shape, xt, gen):
    """x as every op draws it (the same x at a shape for every kind), the scale, and the tensor the shape's mask kind
    reads, None for the other: padding's lengths, an int32 per batch entry drawn uniformly in [keys/2, keys];
    additive's mask, [batch, queries, keys] in x's type, as kevo's ordinary cases draw it: about 30% of the keys at
    scattered places hold x's type's lowest finite value (torch.finfo(dtype).min, as Hugging Face masks), one drawn
    key per row never, and the rest a bias 2 N(0, 1), so a kernel that scales the bias or drops it is wrong."""
    inputs = {**logits(shape, xt, gen), "lengths": None, "mask": None, "scale": ATTENTION_SCALE}
    device, keys = gen.device, shape.keys
    if shape.mask == "padding":
        inputs["lengths"] = torch.randint(keys // 2, keys + 1, (shape.batch,), generator=gen, device=device,
                                          dtype=torch.int32)
    elif shape.mask == "additive":
        n = shape.batch * shape.queries
        bias = torch.randn(n, keys, generator=gen, device=device) * 2
        masked = torch.rand(n, keys, generator=gen, device=device) < ADDITIVE_MASKED
        kept = torch.randint(0, keys, (n,), generator=gen, device=device)
        masked[torch.arange(n, device=device), kept] = False
        inputs["mask"] = bias.masked_fill(masked, torch.finfo(xt).min).to(xt).view(shape.batch, shape.queries, keys)
    return inputs


def attention_bias(shape, inputs):
    """What a user adds to the scaled scores, [.., queries, keys] broadcasting over [batch, heads, queries, keys]:
    the additive mask as [batch, 1, queries, keys]; -inf above the bottom-right diagonal ([queries, keys], causal) or
    at keys past the batch entry's length ([batch, 1, 1, keys], padding), 0 elsewhere, in x's type; None for none."""
    x = inputs["x"]
    b, q, k = shape.batch, shape.queries, shape.keys
    if shape.mask == "additive":
        return inputs["mask"].view(b, 1, q, k)
    if shape.mask == "causal":
        return torch.full((q, k), -math.inf, dtype=x.dtype, device=x.device).triu(k - q + 1)
    if shape.mask == "padding":
        past = torch.arange(k, device=x.device) >= inputs["lengths"].long().view(b, 1, 1, 1)
        return torch.zeros(b, 1, 1, k, dtype=x.dtype, device=x.device).masked_fill(past, -math.inf)
    return None


def torch_masked_softmax(shape, inputs, yt):
    """The composition users write: torch.softmax(x.view(B, H, Q, K) * scale + bias, dim=-1), the bias
    (attention_bias) made once, before anything is timed, as a model makes its mask once a forward; three kernels
    (scale, add, softmax), each allocating its output; with no mask, two."""
    x, scale = inputs["x"], inputs["scale"]
    x4 = x.view(shape.batch, shape.heads, shape.queries, shape.keys)
    bias = attention_bias(shape, inputs)
    extra = {} if x.dtype == yt else {"dtype": yt}
    if bias is None:
        return lambda: torch.softmax(x4 * scale, dim=-1, **extra).view(shape.rows, shape.cols)
    return lambda: torch.softmax(x4 * scale + bias, dim=-1, **extra).view(shape.rows, shape.cols)


def masked_reference(shape, inputs, rows):
    """kevo's reference (masked_softmax_scores.cu, masked_softmax.cu) over a block of rows: each score scale * x +
    bias rounded once to float32 (fma(scale, x, bias) in a kernel), -inf where masked (causal: key c > q + keys -
    queries; padding: c >= lengths[b]; additive: a mask entry of -inf or x's type's lowest value); then softmax in
    float64, a masked key exactly 0 and a row with no score left 0 throughout. Also what is held exactly (the masked
    keys) and which rows have no score left."""
    x = inputs["x"][rows].double()
    r = torch.arange(rows.start, rows.stop, device=x.device)
    q, b = r % shape.queries, r // (shape.queries * shape.heads)
    c = torch.arange(shape.keys, device=x.device)
    bias = 0.0
    if shape.mask == "causal":
        masked = c.view(1, -1) > (q + shape.keys - shape.queries).view(-1, 1)
    elif shape.mask == "padding":
        masked = c.view(1, -1) >= inputs["lengths"].long()[b].view(-1, 1)
    elif shape.mask == "additive":
        m = inputs["mask"].view(-1, shape.keys)[b * shape.queries + q].float()
        masked = (m == -math.inf) | (m == torch.finfo(inputs["x"].dtype).min)
        bias = m.double()
    else:
        masked = torch.zeros(x.shape, dtype=torch.bool, device=x.device)
    scores = (inputs["scale"] * x + bias).float().double().masked_fill(masked, -math.inf)
    top = scores.amax(dim=-1, keepdim=True)
    empty = torch.isinf(top)  # -inf: no score left (a score is otherwise finite: x finite, the scale below 1)
    e = torch.exp(scores - top.masked_fill(empty, 0.0))  # exp(-inf) = 0 at a masked key
    total = e.sum(dim=-1, keepdim=True)
    ref = (e / total).masked_fill(empty, 0.0)
    return ref, masked, empty.view(-1)


def triton_masked(shape, inputs, y, sms):
    def call():
        kb.triton_masked_softmax(inputs["x"], y, inputs["lengths"], inputs["mask"], inputs["scale"], shape.heads,
                                 shape.queries, shape.mask_kind, sms)
    return call


MASKED_NOTE = (
    f"scale {ATTENTION_SCALE!r} (1/sqrt(128) as a float32) on every shape; padding: lengths int32 per batch entry, "
    "uniform in [keys/2, keys]; additive: mask [batch, queries, keys] in x's dtype, about 30% of keys at "
    "torch.finfo(dtype).min (one key per row always kept), a bias 2 N(0,1) elsewhere; causal is bottom-right "
    "aligned (query q sees keys c <= q + keys - queries) and reads no tensor. floor_bytes: x read, y written and "
    "the kind's tensor read (lengths or mask; none for causal and none), all of x counted whatever the mask, so a "
    "kernel that skips the keys a causal or padding mask hides may pass the floor (floor_fraction above 1). torch: "
    "torch.softmax(x.view(B,H,Q,K) * scale + bias, dim=-1), bias the additive mask as [B,1,Q,K], or 0/-inf as users"
    " build it ([Q,K] triu for causal, [B,1,1,K] for padding), made before timing. torch's check skips the rows "
    "with no score left (causal with more queries than keys, e.g. attention.yaml's 2x8x1024x512: its first 512 "
    "queries a head), counted in checks.torch.emptyRowsNotCompared: there torch.softmax of all -inf is NaN by its "
    "definition, not by imprecision, while kevo's contract writes 0 as SDPA does; torch is timed as users run the "
    "composition, not with a NaN-to-0 pass added that no one runs with it. kevo's and Triton's outputs are compared"
    " on every row, fully masked ones included (exactly 0). In bf16 torch rounds x * scale and then + bias to bf16 "
    "(two roundings of the score) where kevo's contract rounds the score once to float32: where that falls outside "
    "kevo's tolerance the row says so and torch is timed all the same")


# ---- softmax_backward and log_softmax_backward (docs/operators.md#softmax_backward-and-log_softmax_backward) ----
def backward_inputs(forward):
    """y, the forward's answer on x as every op draws it (computed in float32, rounded to x's type, as a forward
    kernel would hand it on), and dy standard normal in x's type: what training's backward gets."""
    def make(shape, xt, gen):
        x = logits(shape, xt, gen)["x"]
        y = getattr(torch, forward)(x.float(), dim=-1).to(xt)
        dy = torch.randn(shape.rows, shape.cols, device=gen.device, generator=gen).to(xt)
        return {"y": y, "dy": dy}
    return make


def like_y(inputs, yt):
    return torch.empty(inputs["y"].shape, dtype=yt, device=inputs["y"].device)


def torch_backward(name):
    """torch.NAME(dy, y, -1, x's dtype) as autograd calls it; it takes one dtype, so not for bf16 in, float32 out."""
    def call(shape, inputs, yt):
        y, dy = inputs["y"], inputs["dy"]
        if y.dtype != yt:
            raise ValueError(f"torch.{name} takes y, dy and dx in one dtype, not {y.dtype} in and {yt} out")
        f = getattr(torch, name)
        return lambda: f(dy, y, -1, yt)
    return call


def backward_reference(log):
    """dx in float64 from y and dy as stored: dy - exp(y) sum(dy) (LOG), y (dy - sum(y dy)) otherwise."""
    def reference(shape, inputs, rows):
        y, dy = inputs["y"][rows].double(), inputs["dy"][rows].double()
        if log:
            return dy - torch.exp(y) * dy.sum(dim=-1, keepdim=True)
        return y * (dy - (y * dy).sum(dim=-1, keepdim=True))
    return reference


def backward_scale(log):
    """Each element's scale, |dy| + w(y) sum_row |term|, (term, w) = (dy, exp(y)) for LOG, else (y dy, y): what an
    honest float32 dot product's error is a few units of (RowDotBackward.TOLERANCE, docs/measurement.md)."""
    def scale(shape, inputs, rows):
        y, dy = inputs["y"][rows].double(), inputs["dy"][rows].double()
        w, term = (torch.exp(y), dy) if log else (y, y * dy)
        return dy.abs() + w.abs() * term.abs().sum(dim=-1, keepdim=True)
    return scale


def triton_backward(log):
    def call(shape, inputs, dx, sms):
        return lambda: kb.triton_backward(inputs["y"], inputs["dy"], dx, log, sms)
    return call


BACKWARD_NOTE = ("y is the forward's float32 answer on x (normal, standard deviation 4) rounded to x's type, dy "
                 "standard normal; floor_bytes: y and dy read once, dx written once. The check is kevo's for these "
                 "operators: per element 1e-4 of each element's scale |dy| + w(y) sum_row |term| plus one unit of dx's "
                 "type, the case's L2 error relative to the scales' (docs/measurement.md)")


# ---- cross_entropy (docs/operators.md#cross_entropy) ----
IGNORE_INDEX = -100  # torch's default ignore_index, the only one kevo's cross_entropy takes
CROSS_ENTROPY_G = 1.0  # the incoming gradient: loss.backward()'s, what torch's call below gives its backward
IGNORED_SHARE = 8  # about one row in this many ignored, as kevo's harness draws its labels (kv_ce_label)


def cross_entropy_inputs(shape, xt, gen):
    """x as every op draws it (the same x at a shape), labels int64 uniform in [0, cols) with about one row in eight
    -100 (ignored), drawn from the same generator after x, so every variant and dtype at a shape gets the same labels;
    and g."""
    inputs = logits(shape, xt, gen)
    device = gen.device
    labels = torch.randint(0, shape.cols, (shape.rows,), generator=gen, device=device, dtype=torch.int64)
    ignored = torch.randint(0, IGNORED_SHARE, (shape.rows,), generator=gen, device=device) == 0
    return {**inputs, "labels": labels.masked_fill(ignored, IGNORE_INDEX), "g": CROSS_ENTROPY_G}


def cross_entropy_loss_output(inputs):
    return {"loss": torch.empty(1, dtype=torch.float32, device=inputs["x"].device)}


def live_rows(inputs):
    """n, the rows whose label is not ignored: the mean's divisor, over the whole case whatever block is checked."""
    return int((inputs["labels"] != IGNORE_INDEX).sum())


# The two reductions, each an operator of kevo's (cross_entropy, cross_entropy_sum): the same inputs, outputs and bounds
# but for what the live rows' sum is divided by, n or 1. Every function below takes the reduction ('mean' unless
# given) and divides by reduction_divisor, so the sum's checks are the mean's, not a second copy that could drift.
REDUCTIONS = ("mean", "sum")


def is_mean(reduction):
    """Whether the reduction is the mean ('mean'), not the sum ('sum'); anything else is refused."""
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction '{reduction}': one of {', '.join(REDUCTIONS)}")
    return reduction == "mean"


def reduction_divisor(inputs, reduction):
    """What the rows' sum and g are divided by: n for the mean (0 where no row is live), 1 for the sum."""
    return live_rows(inputs) if is_mean(reduction) else 1


def cross_entropy_rows(inputs, rows, reduction="mean"):
    """A block of rows in float64: p (softmax of x as stored), the one-hot of each live row's label (0 throughout on
    an ignored row), which rows are live, and g / n, or g for the sum (0 where the mean has no live row: then every
    dx is 0)."""
    x = inputs["x"][rows].double()
    labels = inputs["labels"][rows]
    live = labels != IGNORE_INDEX
    p = torch.softmax(x, dim=-1)
    hot = torch.zeros_like(x).scatter_(1, labels.clamp(min=0).view(-1, 1), 1.0) * live.view(-1, 1)
    n = reduction_divisor(inputs, reduction)
    return p, hot, live, (inputs["g"] / n if n else 0.0)


def cross_entropy_reference(shape, inputs, rows, reduction="mean"):
    """dx = g (p - onehot) / n on live rows (/ 1 for the sum); an ignored row's 0, held exactly (and, with no live
    row, every row's)."""
    p, hot, live, per = cross_entropy_rows(inputs, rows, reduction)
    ignored = (~live).view(-1, 1).expand_as(p)
    return (per * (p - hot)).masked_fill(ignored, 0.0), ignored, None


def cross_entropy_allowance(shape, inputs, rows, absolute, relative, reduction="mean"):
    """kevo's bound on dx (kevo_compare_cross_entropy): (absolute + relative p) |g| / n, plus what flushing
    subnormals costs, FLT_MIN (1 + |g| / n); the case's L2 against |g| / n (p + onehot). |g| for the sum's |g| / n, as
    its harness divides by 1 (KV_CE_MEAN 0)."""
    p, hot, _, per = cross_entropy_rows(inputs, rows, reduction)
    a = abs(per)
    return a * (absolute + relative * p) + torch.finfo(torch.float32).tiny * (1 + a), a * (p + hot)


def finite_or_text(v):
    """A float for the record, a non-finite one as text ("nan", "-inf"): the record stays JSON."""
    return v if math.isfinite(v) else repr(v)


def cross_entropy_loss_check(op, shape, inputs, more, reduction="mean"):
    """{"loss": its check}: the loss against the float64 mean (the sum, for the sum) of the live rows' (max -
    x[label]) + log(sum) (as kevo's reference takes a row's loss, never lse - x[label], whose lse absorbs log(sum) where
    the maximum is huge): within the op's L2 tolerance of the loss's scale, the mean (the sum) of |max - x[label]| +
    log(sum) + 1, plus one unit of the loss's type at the answer (float32, what kevo's contract returns; torch's loss
    is in x's type, and is given that type's unit, as every output is its own type's in y's check). Where no row is
    live, exactly what torch gives: the mean's NaN (0 / 0), the sum's 0."""
    got_t = more["loss"].reshape(-1)
    got = float(got_t[0].double())
    total = scale = 0.0
    per = max(1, CHECK_ELEMENTS // max(1, shape.cols))
    for start in range(0, shape.rows, per):
        rows = slice(start, min(shape.rows, start + per))
        x = inputs["x"][rows].double()
        labels = inputs["labels"][rows]
        live = labels != IGNORE_INDEX
        top = x.amax(dim=-1)
        log_sum = torch.log(torch.exp(x - top.view(-1, 1)).sum(dim=-1))
        gap = top - x.gather(1, labels.clamp(min=0).view(-1, 1)).view(-1)
        total += float(((gap + log_sum)[live]).sum())
        scale += float(((gap.abs() + log_sum + 1.0)[live]).sum())
    n, divisor = live_rows(inputs), reduction_divisor(inputs, reduction)
    result = {"dtype": str(got_t.dtype).replace("torch.", ""), "liveRows": n, "loss": finite_or_text(got)}
    if n == 0:
        mean = is_mean(reduction)
        return {"loss": {**result, "ok": math.isnan(got) if mean else got == 0.0, "reference": "nan" if mean else 0.0}}
    ref = total / divisor
    held = torch.tensor([ref], dtype=torch.float64).to(got_t.dtype).double()
    bound = op.tolerance[2] * scale / divisor + float(ulp(got_t.dtype, held)[0])
    err = abs(got - ref)
    return {"loss": {**result, "ok": math.isfinite(got) and err <= bound, "reference": ref,
                     "absError": finite_or_text(err), "bound": bound}}


def torch_cross_entropy(shape, inputs, yt, reduction="mean"):
    """What a training step runs: loss = F.cross_entropy(logits, labels) (ignore_index -100, mean or sum), then
    loss.backward(), on a leaf in x's type (x's storage, detached); both timed, each call from .grad = None, as
    zero_grad(set_to_none=True) leaves it between steps: no accumulation into an earlier grad, a fresh one from
    torch's caching allocator. Setting it is host work only, so no GPU time. dx comes in x's type whatever y's (a
    user's grad is in the leaf's type), and the loss in x's type too."""
    if inputs["g"] != 1.0:
        raise ValueError(f"torch's peer runs loss.backward(), g = 1, not {inputs['g']}")
    xr = inputs["x"].detach().requires_grad_()
    labels, cross_entropy = inputs["labels"], torch.nn.functional.cross_entropy

    def call():
        xr.grad = None
        loss = cross_entropy(xr, labels, reduction=reduction)
        loss.backward()
        return xr.grad, {"loss": loss.detach()}
    return call


def triton_fused_cross_entropy(shape, inputs, dx, sms, loss, reduction="mean"):
    """tce.cross_entropy: a program a row, its rows' losses in a float32 buffer made before timing."""
    row_loss = torch.empty(shape.rows, dtype=torch.float32, device=dx.device)
    x, labels, g = inputs["x"], inputs["labels"], inputs["g"]
    return lambda: tce.cross_entropy(x, labels, dx, loss, g, row_loss, reduction)


def cross_entropy_note(reduction):
    """The record's note on the op of that reduction: the mean's, with the sum's torch call, its Triton kernel's (no
    count of the live rows), and |g| and the sum of the loss's scales where the mean has |g| / n and their mean."""
    mean = is_mean(reduction)
    call = "F.cross_entropy(x, labels)" if mean else "F.cross_entropy(x, labels, reduction='sum')"
    triton = ("dx = g (p - onehot) / n from a second read of the row; n counted by torch, (labels != -100).sum(), and "
              "the loss torch's sum of the rows' losses / n, both in the timed call" if mean else
              "dx = g (p - onehot) from a second read of the row, no count of the live rows; the loss torch's sum of "
              "the rows' losses, in the timed call")
    g = "|g| / n" if mean else "|g|"
    loss = "within 1e-4 of the mean" if mean else "exactly 0 where no row is live, else within 1e-4 of the sum"
    return (
        "x as every op draws it (normal, standard deviation 4); labels int64 uniform in [0, cols), about one row in "
        f"eight {IGNORE_INDEX} (ignored), the same at a shape for every variant and dtype; g = {CROSS_ENTROPY_G} (the "
        "incoming gradient, loss.backward()'s). floor_bytes: x and labels read once, dx and the one float32 loss "
        f"written once. torch: loss = {call} then loss.backward() on a leaf in x's dtype, forward and backward timed "
        "together (log_softmax, nll_loss, ones_like for the gradient, nll_loss's and log_softmax's backward), each "
        "call from .grad = None (set in the timed call, host work only), so every call allocates a fresh dx as a "
        "training step does after zero_grad(); its host time (autograd's) is in the measure where it outlasts the "
        "~100 us the GPU is kept busy before each timed launch, which only the smallest shapes may see; torch's dx and "
        "loss are in x's dtype (bf16 in bf16: the loss then held to a bf16 unit, and log_softmax's bf16 output rounds "
        "every p, so torch's bf16 check may fail where kevo's contract computes in float32). Triton: one program a "
        f"row over chunks of 4096 columns, an online (max, sum) per lane, then {triton}. Checks: dx as kevo holds it, "
        f"per element (1e-6 + 1e-4 p) {g} + one unit of dx's type (+ FLT_MIN (1 + {g})), an ignored row's exactly 0, "
        f"the case's L2 against {g} (p + onehot); the loss (checks.ROLE.loss) {loss} of |max - x[label]| + log(sum) + "
        "1 over live rows, plus one unit of its type")


def cross_entropy_op(reduction):
    """The operator of that reduction, cross_entropy's callables with it bound: the mean's and the sum's entries
    differ in nothing else, so a fix to one is a fix to both."""
    mean = is_mean(reduction)
    bind = lambda f: functools.partial(f, reduction=reduction)
    return Op(inputs=cross_entropy_inputs, output=like_x, output_name="dx", more_outputs=cross_entropy_loss_output,
              torch_name="torch.nn.functional.cross_entropy+backward" if mean else
                         "torch.nn.functional.cross_entropy(reduction='sum')+backward",
              torch_call=bind(torch_cross_entropy), reference=bind(cross_entropy_reference),
              allowance=bind(cross_entropy_allowance), check_more=bind(cross_entropy_loss_check),
              tolerance=(1e-6, 1e-4, 1e-4),
              triton_name="triton fused cross entropy + backward (a program a row, online over 4096-column chunks; "
                          + ("n and the loss's mean by torch)" if mean else "the loss's sum by torch)"),
              triton_call=bind(triton_fused_cross_entropy), triton_refusal=lambda shape: None,
              note=cross_entropy_note(reduction))


OPS = {
    "softmax": Op(inputs=logits, output=like_x, torch_name="torch.softmax", torch_call=torch_rowwise("softmax"),
                  reference=torch_reference("softmax"), tolerance=(1e-6, 1e-4, 1e-4),
                  triton_name="triton fused softmax (tutorial)", triton_call=triton_rowwise("triton_softmax_kernel")),
    "log_softmax": Op(inputs=logits, output=like_x, torch_name="torch.log_softmax",
                      torch_call=torch_rowwise("log_softmax"), reference=torch_reference("log_softmax"),
                      tolerance=(1e-4, 1e-5, 1e-5), triton_name="triton log_softmax (tutorial's style)",
                      triton_call=triton_rowwise("triton_log_softmax_kernel")),
    "masked_softmax": Op(inputs=attention_inputs, output=like_x,
                         torch_name="torch.softmax(x.view(B,H,Q,K) * scale + bias, dim=-1)",
                         torch_call=torch_masked_softmax, reference=masked_reference, tolerance=(1e-6, 1e-4, 1e-4),
                         triton_name="triton masked softmax (tutorial's style: a program a row, mask from the row)",
                         triton_call=triton_masked, mask_kinds=("none", "causal", "padding", "additive"),
                         torch_on_empty_rows=False, note=MASKED_NOTE),
    "softmax_backward": Op(inputs=backward_inputs("softmax"), output=like_y, output_name="dx",
                           torch_name="torch._softmax_backward_data", torch_call=torch_backward("_softmax_backward_data"),
                           reference=backward_reference(False), scale=backward_scale(False),
                           tolerance=(1e-4, 0.0, 1e-4),
                           triton_name="triton softmax backward (tutorial's style; tiled past 16384 columns)",
                           triton_call=triton_backward(False), triton_refusal=lambda shape: None,
                           note=BACKWARD_NOTE),
    "log_softmax_backward": Op(inputs=backward_inputs("log_softmax"), output=like_y, output_name="dx",
                               torch_name="torch._log_softmax_backward_data",
                               torch_call=torch_backward("_log_softmax_backward_data"),
                               reference=backward_reference(True), scale=backward_scale(True),
                               tolerance=(1e-4, 0.0, 1e-4),
                               triton_name="triton log_softmax backward (tutorial's style; tiled past 16384 "
                                           "columns)",
                               triton_call=triton_backward(True), triton_refusal=lambda shape: None,
                               note=BACKWARD_NOTE),
    "cross_entropy": cross_entropy_op("mean"),
    "cross_entropy_sum": cross_entropy_op("sum"),
}


# ---- jobs ----
@dataclass(frozen=True)
class Job:
    op: str
    dtype: str
    kernel: str
    suite: str

    def name(self):
        return f"{self.op}:{self.dtype}:{self.kernel}:{self.suite}"


def suite_path(suite):
    """A suite file as given, or a bare name (standard, llm, ...) as evaluator/suites/NAME.yaml."""
    if os.sep in suite or suite.endswith((".yaml", ".yml")):
        return suite
    return os.path.join("evaluator", "suites", suite + ".yaml")


def parse_job(text):
    """op:dtype:kernel:suite. Only the kernel's path may hold a colon: the op, the dtype and the suite are the first
    two fields and the last."""
    parts = text.split(":")
    if len(parts) < 4 or not all(parts):
        raise argparse.ArgumentTypeError(f"'{text}': a job is op:dtype:kernel:suite")
    return Job(parts[0], parts[1], ":".join(parts[2:-1]), suite_path(parts[-1]))


def read_jobs_file(path):
    """The jobs of a jobs file, each dtype on each suite where an entry lists several."""
    text = open(path).read()
    try:
        data = json.loads(text)
    except ValueError:
        try:
            import yaml
        except ImportError:
            raise SystemExit(f"{path}: not JSON, and PyYAML is not installed to read it as YAML: give the jobs as "
                             "JSON or as --job")
        data = yaml.safe_load(text)
    entries = data.get("jobs") if isinstance(data, dict) else None
    if not isinstance(entries, list) or not entries:
        raise SystemExit(f"{path}: expected a 'jobs' list of {{op, dtype, kernel, suite}}")
    jobs = []
    for i, e in enumerate(entries):
        missing = [k for k in ("op", "dtype", "kernel", "suite") if not isinstance(e, dict) or k not in e]
        if missing:
            raise SystemExit(f"{path}: jobs[{i}] has no {', '.join(missing)}")
        as_list = lambda v: v if isinstance(v, list) else [v]
        jobs += [Job(str(e["op"]), str(d), str(e["kernel"]), suite_path(str(s)))
                 for d in as_list(e["dtype"]) for s in as_list(e["suite"])]
    return jobs


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="bench/family.py", description=__doc__.split("\n\n")[0],
        epilog=f"ops: {', '.join(OPS)}; dtypes: fp32, bf16, fp16, bf16-fp32. See the module's docstring for the "
               "method and the tie rule.", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--job", action="append", type=parse_job, default=[], metavar="OP:DTYPE:KERNEL:SUITE",
                   help="a job (repeat it); SUITE a path or a name under evaluator/suites/")
    p.add_argument("--jobs", metavar="FILE", help="a YAML or JSON file of jobs, run after any --job")
    p.add_argument("--out", required=True, metavar="OUT.json", help="the record to write")
    p.add_argument("--rounds", type=int, default=None, metavar="N",
                   help="timed rounds per shape (default 60, as compare_torch.py)")
    p.add_argument("--seed", type=int, default=0, help="the inputs' seed (default 0): the same x at a shape for "
                                                       "every op and dtype")
    args = p.parse_args(argv)
    args.jobs = args.job + (read_jobs_file(args.jobs) if args.jobs else [])
    if not args.jobs:
        p.error("no job: give --job or --jobs")
    for job in args.jobs:
        if job.op not in OPS:
            p.error(f"{job.name()}: no op '{job.op}' in the registry (ops: {', '.join(OPS)})")
    if args.rounds is not None and args.rounds < 2:
        p.error("--rounds takes 2 or more")
    args.parser = p
    return args


def validate(jobs, parser):
    """What can be found wrong before the GPU is touched: a dtype kevo does not know, a missing file, a kernel file
    of another op or dtype, a suite with no shapes or a shape kevo would refuse (a mask kind the op does not take)."""
    for job in jobs:
        if job.dtype not in kb.DTYPES:
            parser.error(f"{job.name()}: no dtype '{job.dtype}' (dtypes: {', '.join(kb.DTYPES)})")
        for path in (job.kernel, job.suite):
            if not os.path.isfile(path):
                parser.error(f"{job.name()}: no file {path}")
        header = kb.kevo_header(job.kernel)
        if header.get("op", "softmax") != job.op:
            parser.error(f"{job.name()}: {job.kernel} implements op {header.get('op', 'softmax')}, not {job.op}")
        if job.dtype not in kb.header_dtypes(header):
            parser.error(f"{job.name()}: {job.kernel} implements dtype {header.get('dtype', 'fp32')}, not "
                         f"{job.dtype}")
        try:
            shapes = kb.suite_cases(job.suite)
        except ValueError as e:
            parser.error(f"{job.name()}: {e}")
        for shape in shapes:  # as kevo: a suite shape of a mask kind its operator does not take is an input error
            if shape.mask not in OPS[job.op].mask_kinds:
                parser.error(f"{job.name()}: {job.suite}: shape {shape}: {job.op} takes no mask kind '{shape.mask}' "
                             f"(it takes {', '.join(OPS[job.op].mask_kinds)})")


# ---- the check against float64 ----
def ulp(dtype, held):
    """One unit in the last place of dtype at |held| (a value dtype holds): what rounding to dtype may cost a correct
    kernel, kevo's allowance beyond the float32 tolerance. The smallest subnormal at least."""
    info = torch.finfo(dtype)
    a = held.abs().clamp(max=info.max)
    _, exponent = torch.frexp(a)  # a = m 2^exponent, m in [0.5, 1): the spacing there is 2^(exponent - 1) eps
    spacing = torch.ldexp(torch.full_like(a, info.eps), exponent - 1)
    return spacing.clamp(min=info.tiny * info.eps)


def reference_parts(result):
    """An op's reference for a block of rows as (answer, held exactly, rows with no score left): softmax's gives the
    answer alone, an infinite answer held exactly and no row empty."""
    if isinstance(result, tuple):
        return result
    return result, torch.zeros(result.shape, dtype=torch.bool, device=result.device), None


def check(op, shape, inputs, out, on_empty_rows=True):
    """out against op's float64 reference, with kevo's rule: per element |out - ref| <= absolute + relative |ref| +
    one unit in the last place of out's type, an infinite ref and one the op holds exactly (a masked key's 0) only
    exactly; per case the relative L2 error at most the op's bound + 1.25x that of the reference rounded to out's
    type. A block of rows at a time. Without on_empty_rows, rows with no score left (fully masked) are not compared
    but counted, with what out holds there."""
    absolute, relative, l2 = op.tolerance
    per = max(1, CHECK_ELEMENTS // max(1, out[0].numel()))
    violations = nonfinite = skipped = 0
    skipped_held = {"nan": 0, "zero": 0, "other": 0}
    max_err = worst = err_sq = ref_sq = held_sq = 0.0
    for start in range(0, out.shape[0], per):
        rows = slice(start, min(out.shape[0], start + per))
        ref, held_exactly, empty = reference_parts(op.reference(shape, inputs, rows))
        got = out[rows].double()
        if not on_empty_rows and empty is not None and bool(empty.any()):
            there = got[empty]
            skipped += int(empty.sum())
            skipped_held["nan"] += int(torch.isnan(there).sum())
            skipped_held["zero"] += int((there == 0).sum())
            skipped_held["other"] += int(there.numel() - torch.isnan(there).sum() - (there == 0).sum())
            got = torch.where(empty.view(-1, 1), ref, got)
        held = ref.to(out.dtype).double()  # the best answer out's type holds
        exact = torch.isinf(ref) | held_exactly
        violations += int((exact & (got != ref)).sum())
        finite = ~exact & torch.isfinite(got)
        nonfinite += int((~exact & ~torch.isfinite(got)).sum())
        err = torch.where(finite, (got - ref).abs(), torch.zeros_like(got))
        if op.allowance:
            allowed, weight = op.allowance(shape, inputs, rows, absolute, relative)
        else:
            scale = op.scale(shape, inputs, rows) if op.scale else None
            allowed = absolute * (scale if scale is not None else 1.0) + relative * ref.abs()
            weight = scale if scale is not None else ref
        bound = allowed + ulp(out.dtype, held)
        violations += int((err > bound).sum())
        if finite.any():
            max_err = max(max_err, float(err.max()))
            worst = max(worst, float((err / bound).max()))
        counted = finite & torch.isfinite(held)  # whole-case errors over the answers out's type holds finitely
        err_sq += float((err[counted] ** 2).sum())
        ref_sq += float((weight[counted] ** 2).sum())
        held_sq += float(((held - ref)[counted] ** 2).sum())
    norm = math.sqrt(ref_sq) or 1.0
    rel_l2, l2_bound = math.sqrt(err_sq) / norm, l2 + 1.25 * math.sqrt(held_sq) / norm
    result = {"ok": violations == 0 and nonfinite == 0 and rel_l2 <= l2_bound, "maxAbsError": max_err,
              "worstOfAllowance": worst, "violations": violations, "nonfinite": nonfinite, "relativeL2": rel_l2,
              "relativeL2Bound": l2_bound}
    if not on_empty_rows:
        result["emptyRowsNotCompared"] = skipped
        result["emptyRowsHeld"] = skipped_held  # elements of those rows: NaN (torch.softmax's), 0 (SDPA's), other
    return result


def admit(role, op, shape, inputs, first_run, timed, variants, checks):
    """Runs an implementation once and checks its output. kevo's is timed only if it passes, as kevo times a candidate;
    a peer's is timed all the same, its check recorded beside it, as kevo's evaluator times its vendor baseline: the
    peer is what users run, but no one should take it for the ground truth. One that cannot run is not timed."""
    try:
        out = first_run()
        torch.cuda.synchronize()
        y, more = out if isinstance(out, tuple) else (out, {})
        result = check(op, shape, inputs, y, on_empty_rows=role != "torch" or op.torch_on_empty_rows)
        for name, c in (op.check_more(op, shape, inputs, more) if op.check_more else {}).items():
            result[name] = c
            result["ok"] = result["ok"] and c["ok"]
        checks[role] = result
    except Exception as e:  # noqa: BLE001 - a failure is recorded on its row, and that implementation not timed
        checks[role] = {"ok": False, "error": (str(e).strip().splitlines() or [type(e).__name__])[0][:300]}
        return
    if checks[role]["ok"] or role != "kevo":
        variants[role] = timed
    if not checks[role]["ok"]:
        checks[role]["error"] = ("wrong output: not timed" if role == "kevo" else
                                 "outside kevo's tolerance for the op: timed all the same")


# ---- one row ----
PEERS = ("torch", "triton")


def paired(kevo, peer):
    """kevo against a peer over the paired rounds: the median of peer / kevo per round, its 95% interval (order
    statistics), and the verdict: faster where the interval lies above 1, slower where below, else a tie."""
    med, (lo, hi) = kb.median_ci95([b / a for a, b in zip(kevo, peer)])
    verdict = "faster" if lo > 1 else "slower" if hi < 1 else "tie"
    return verdict, {"ratio_median": med, "ratio_ci95": [lo, hi], **kb.shares(kevo, peer)}


def floor_variants(nbytes, device):
    """The floor's two copies of nbytes, half read and half written, between two buffers in the widest word that
    divides the half (a softmax in fp32 copies 4-byte words, in bf16 2-byte ones: what compare_torch.py's copy of x into
    y moves); the source random, as inputs are. Each is checked to copy: one that did not would make a floor no kernel
    could reach."""
    half = nbytes // 2
    word = next(t for t in (torch.int32, torch.int16, torch.uint8) if half % (torch.iinfo(t).bits // 8) == 0)
    n = half // (torch.iinfo(word).bits // 8)
    src = torch.empty(n, dtype=word, device=device).random_(0, 100)
    dst = torch.empty(n, dtype=word, device=device)
    copies = kb.floor_copies(src, dst)
    for name, copy in copies.items():
        dst.zero_()
        copy()
        if not torch.equal(src, dst):
            raise RuntimeError(f"{name} does not copy: no floor from it")
    return copies


def implementations(op, kernel, shape, inputs, y, more, ctx, row):
    """kevo's, torch's and Triton's implementations of the op on these inputs, each run once and checked (admit):
    the calls to time, and every check or reason one is not run."""
    variants, checks = {}, {}

    def poisoned(call):
        """One run into y filled with NaN first, so that an element left unwritten fails the check; the more outputs
        with -inf (NaN may be their answer)."""
        def first_run():
            y.fill_(float("nan"))
            for t in more.values():
                t.fill_(-math.inf)
            call()
            return (y, more) if more else y
        return first_run

    try:
        variables = shape.variables()  # batch, heads, queries, mask_kind: what an attention file's plans may read
        plan, ws = kernel.prepare(shape.rows, shape.cols, variables)
        run = kernel.bind_tensors(plan, {**inputs, op.output_name: y, **more, "ws": ws}, shape.rows, shape.cols,
                                  ctx["stream"], variables)
        row["kevo_launches"] = [launch["kernel"] for launch in plan["launches"]]
        admit("kevo", op, shape, inputs, poisoned(run), run, variants, checks)
    except Exception as e:  # noqa: BLE001 - no plan for this shape, or one that does not bind: on the row
        checks["kevo"] = {"ok": False, "error": str(e)}
    try:
        torch_call = op.torch_call(shape, inputs, y.dtype)
    except Exception as e:  # noqa: BLE001 - a bias that cannot be made (memory): on the row, torch not timed
        checks["torch"] = {"ok": False, "error": (str(e).strip().splitlines() or [type(e).__name__])[0][:300]}
    else:
        admit("torch", op, shape, inputs, torch_call, torch_call, variants, checks)
    refusal = op.triton_refusal(shape) if op.triton_call else "no Triton kernel for this op"
    if refusal is None:
        triton_call = op.triton_call(shape, inputs, y, ctx["sms"], **more)
        admit("triton", op, shape, inputs, poisoned(triton_call), triton_call, variants, checks)
    else:
        checks["triton"] = {"ok": False, "error": refusal}
    return variants, checks


def timings(times):
    """A row's times: the medians and their intervals, the floor (the faster copy), the ratios over kevo's median
    and the paired verdicts."""
    medians = {n: kb.median_ci95(t) for n, t in times.items()}
    floor_by = min(("copy", "copy kernel (triton)"), key=lambda n: medians[n][0])
    times["floor"], medians["floor"] = times[floor_by], medians[floor_by]
    out = {"floor_by": floor_by}
    for role in ("kevo", "floor") + PEERS:
        out[f"{role}_us"], out[f"{role}_ci95_us"] = medians.get(role, (None, None))
    out["paired"] = {}
    for role, ratio in (("floor", "floor_fraction"), ("torch", "speedup_vs_torch"), ("triton", "speedup_vs_triton")):
        both = "kevo" in times and role in times
        out[ratio] = out[f"{role}_us"] / out["kevo_us"] if both else None
        out[f"vs_{role}"], out["paired"][role] = paired(times["kevo"], times[role]) if both else (None, None)
    return out


def bench_row(job, kernel, shape, rounds, seed, ctx):
    """One shape of a job: inputs drawn, every implementation checked, all timed together with the floor."""
    op = OPS[job.op]
    xt, yt = kb.DTYPES[job.dtype]
    gen = torch.Generator(device=ctx["device"])
    gen.manual_seed(seed)
    inputs = op.inputs(shape, xt, gen)
    y, more = op.output(inputs, yt), op.more_outputs(inputs)
    row = {"op": job.op, "dtype": job.dtype, "shape": str(shape), "suite": job.suite, "kernel": job.kernel}
    variants, checks = implementations(op, kernel, shape, inputs, y, more, ctx, row)
    # the inputs' tensors read once (None: a mask tensor the kind does not read; floats: scalars), y and the more
    # outputs (cross_entropy's loss) written once
    row["floor_bytes"] = (sum(t.nbytes for t in inputs.values() if torch.is_tensor(t)) + y.nbytes
                          + sum(t.nbytes for t in more.values()))
    variants.update(floor_variants(row["floor_bytes"], y.device))
    row.update(timings(kb.time_rounds(variants, rounds, ctx["flush"])))
    row["checks"] = checks
    return row


# ---- the record ----
def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summarize(job, rows):
    """A job's rows in a few numbers: geometric means of the ratios, and the verdicts counted."""
    mine = [r for r in rows if (r["op"], r["dtype"], r["suite"], r["kernel"]) ==
            (job.op, job.dtype, job.suite, job.kernel)]
    out = {"job": job.name(), "shapes": len(mine), "kevoCheckedAndTimed": sum(r["kevo_us"] is not None for r in mine)}
    for ratio in ("floor_fraction", "speedup_vs_torch", "speedup_vs_triton"):
        out[f"{ratio}_geomean"] = geomean(r[ratio] for r in mine)
    for role in ("floor",) + PEERS:
        verdicts = [r[f"vs_{role}"] for r in mine]
        out[f"vs_{role}"] = {v or "untimed": verdicts.count(v) for v in ("faster", "tie", "slower", None)
                             if v in verdicts}
    return out


def ratio_cell(ratio, verdict):
    return f"{ratio:6.2f} {verdict:6}" if ratio is not None else f"{'-':>6} {'':6}"


def us_cell(us):
    return f"{us:10.1f}" if us is not None else f"{'-':>10}"


TABLE_HEAD = (f"{'op':14} {'dtype':9} {'shape':>24} {'kevo us':>10} {'floor us':>10} {'torch us':>10} "
              f"{'triton us':>10}  {'floor':13} {'torch':13} {'triton':13}")


def table_line(r):
    return (f"{r['op']:14} {r['dtype']:9} {r['shape']:>24} {us_cell(r['kevo_us'])} {us_cell(r['floor_us'])} "
            f"{us_cell(r['torch_us'])} {us_cell(r['triton_us'])}  {ratio_cell(r['floor_fraction'], r['vs_floor'])} "
            f"{ratio_cell(r['speedup_vs_torch'], r['vs_torch'])} {ratio_cell(r['speedup_vs_triton'], r['vs_triton'])}"
            + "".join(f"  [{role}: {c['error']}]" for role, c in r["checks"].items() if "error" in c))


def driver_of(smi):
    """The driver version in nvidia-smi's "name, driver" line of the first GPU."""
    first = smi.splitlines()[0] if smi else ""
    return first.rsplit(",", 1)[-1].strip() if "," in first else None


def record_head(argv, args, rounds, cuda):
    """What the record says besides its rows: when, how and on what it was made, and how to read it."""
    stamp = kb.stamp("bench/family.py", argv)
    if not stamp["commit"]:
        print("warning: no commit known (no KEVO_COMMIT and no git here): the record says none", file=sys.stderr)
    return {
        "what": "the softmax family: kevo's kernel beside torch's op, a Triton kernel for the op and the memory floor, "
                "per op, dtype and shape, same GPU, same process",
        **stamp, "device": torch.cuda.get_device_name(0), "driver": driver_of(stamp["nvidiaSmi"]),
        "torch": torch.__version__, "triton": kb.triton.__version__, "nvrtc": cuda.nvrtc_version,
        "method": f"{kb.WARMUP} warm-up rounds, {rounds} interleaved rounds (kevo, torch, Triton and two copies, in an "
                  "order rotated each round), L2 flushed (2x L2 read) before each launch, GPU busy while the host "
                  "enqueues (torch.cuda._sleep), CUDA events; medians with 95% intervals by order statistics; every "
                  "output checked against float64 with kevo's tolerance for the op before anything is timed",
        "floor": "the faster of torch's copy_ and a Triton copy kernel moving floor_bytes (each input read once, each "
                 "output written once), half read and half written",
        "ratios": "floor_fraction = floor_us / kevo_us (1.0: the speed of a copy); speedup_vs_torch = torch_us / "
                  "kevo_us; speedup_vs_triton = triton_us / kevo_us: above 1, kevo is faster. A summary's geometric "
                  "means are over the shapes where both were timed",
        "tie": "vs_floor, vs_torch, vs_triton: from the per-round ratios peer / kevo (a round times all back to back): "
               "faster where their median's 95% interval (order statistics, a sign test's) lies above 1, slower "
               "where it lies below 1, tie where it holds 1",
        "peers": {name: {"torch": OPS[name].torch_name, "triton": OPS[name].triton_name,
                         **({"note": OPS[name].note} if OPS[name].note else {})}
                  for name in dict.fromkeys(j.op for j in args.jobs)},
        "rounds": rounds, "seed": args.seed, "jobs": [j.__dict__ for j in args.jobs]}


def write_record(path, head, jobs, rows, complete):
    """The record, rewritten after every row: a run cut short (a GPU host's time limit) keeps what it measured."""
    record = {**head, "complete": complete, "summary": [summarize(j, rows) for j in dict.fromkeys(jobs)],
              "rows": rows}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
    os.replace(tmp, path)
    return record


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    load_gpu_modules()
    validate(args.jobs, args.parser)
    rounds = args.rounds or kb.ROUNDS
    props = torch.cuda.get_device_properties(0)
    sms, arch = props.multi_processor_count, f"sm_{props.major}{props.minor}"
    torch.zeros(1, device="cuda")  # the driver-API loader works in torch's context, which exists from here
    cuda = kb.Cuda()
    kernels = {}
    for job in args.jobs:  # every file compiled before anything is timed: a compile error costs no measurement
        key = (job.kernel, job.dtype, job.op)
        if key not in kernels:
            kernels[key] = kb.KevoKernel(cuda, job.kernel, arch, sms, job.dtype, job.op)
    ctx = {"device": "cuda", "stream": torch.cuda.current_stream().cuda_stream, "sms": sms, "flush": kb.Flush(props)}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    head = record_head(argv, args, rounds, cuda)
    print(TABLE_HEAD, flush=True)
    rows = []
    for job in args.jobs:
        print(f"== {job.name()}", flush=True)
        for shape in kb.suite_cases(job.suite):
            rows.append(bench_row(job, kernels[(job.kernel, job.dtype, job.op)], shape, rounds, args.seed, ctx))
            print(table_line(rows[-1]), flush=True)
            write_record(args.out, head, args.jobs, rows, complete=False)
            torch.cuda.empty_cache()
    record = write_record(args.out, head, args.jobs, rows, complete=True)
    print()
    for s in record["summary"]:
        print(json.dumps(s))
    wrong = [f"{r['op']} {r['dtype']} {r['shape']}" for r in rows if r["kevo_us"] is None]
    if wrong:
        print(f"kevo not timed (wrong output or no plan) on: {', '.join(wrong)}", file=sys.stderr)
    return 1 if wrong else 0

if __name__ == "__main__":
    sys.exit(main())
