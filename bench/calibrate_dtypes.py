#!/usr/bin/env python3
"""What torch's own softmax (or log_softmax, with --op log_softmax) reaches in each dtype against kevo's tolerance for
that operator, so that the tolerance is shown to accept the reference implementation users compare with, with a
margin.

kevo's rule (docs/measurement.md, "Tolerances, and why"): per element |y - ref| <= 1e-6 + 1e-4 |ref| + 1 ulp of y's
type at ref, and per case ||y - ref|| / ||ref|| <= 1e-4 + 1.25 x that of ref rounded to y's type (the best answer y's
type can hold), with ref the float64 softmax of the rounded x. For torch.softmax in bf16, fp16 and bf16 -> float32
(dtype=torch.float32) on kevo's input distributions and a few shapes, this prints and records the worst ratio of
error to allowance of both rules (below 1 passes) and the ratio of torch's relative L2 to the best answer's.
For log_softmax (src/main/java/dev/kevo/task/op/LogSoftmax.java: per element 1e-4 + 1e-5 |ref|, per case 1e-5) the
float32 output is calibrated too, an infinite ref (a masked entry's -inf) must be met exactly (counted apart), and an
answer that is infinite where a finite ref rounds to infinity in y's type (fp16 log-probabilities of entries masked
with the lowest value) is counted apart too, as kevo's comparison accepts it and leaves it out of the case's L2.
With --op softmax_backward or log_softmax_backward it calibrates torch._softmax_backward_data /
torch._log_softmax_backward_data instead (src/main/java/dev/kevo/task/op/RowDotBackward.java, provisional): y is the
forward's float64 answer on each case's x rounded to x's type, dy is drawn per row as BackwardInputs draws it (row r of
kind r % 4: normal, sparse, p - onehot, -onehot / rows), both in x's type; the rule is per element |dx - ref| <=
1e-4 scale + 1 ulp of dx's type + FLT_MIN (1 + |dy| + sum_row |term|) (a flushed subnormal's cost), scale =
|dy| + w(y) sum_row |term|, and per case ||dx - ref|| <= 1e-4 ||scale|| +
1.25 ||ref rounded - ref||; masked entries (y = 0, or -inf) must be exact (0, or dy) and are counted apart.
With --op cross_entropy or cross_entropy_sum it calibrates F.cross_entropy (reduction 'mean' or 'sum', ignore_index
-100) forward and backward (CrossEntropy.java, harness_cross_entropy.cu): labels uniform over a row's finite columns,
one row in eight ignored (every row in the constant case), dx = (p - onehot) / n on live rows and 0 on ignored ones
(n the live rows for the mean, 1 for the sum), per element |dx - ref| <= (1e-6 + 1e-4 p) / n + 1 ulp of dx's type +
FLT_MIN (1 + 1 / n), per case ||dx - ref|| <= 1e-4 ||(p + onehot) / n|| + 1.25 ||ref rounded - ref||, and the loss,
a float32 in kevo, within 1e-4 of its scale (the live rows' |max - x[label]| + log(sum) + 1, over n) plus its ulp;
torch's loss is judged as torch returns it (in x's type) and as torch gives it from x in float32.
Usage (on a GPU host with torch): python3 bench/calibrate_dtypes.py OUT.json
    [--op softmax|log_softmax|softmax_backward|log_softmax_backward|cross_entropy|cross_entropy_sum]
"""
import datetime, json, math, os, subprocess, sys
import torch

FLT_MIN = 2.0 ** -126  # float32's smallest normal
SHAPES = [(32, 128), (1823, 781), (1024, 4096), (8, 128256), (1, 1000000)]
ROUNDING = 1.25
# Each operator: torch's function, and kevo's tolerance for it (absolute, relative per element; relative L2 per case).
OPS = {"softmax": (torch.softmax, 1e-6, 1e-4, 1e-4), "log_softmax": (torch.log_softmax, 1e-4, 1e-5, 1e-5)}
# The backward operators: the forward that makes y, torch's backward, the dot product's term, the weight that carries it
# onto an element, and kevo's (provisional) tolerance: absolute in units of each element's scale, relative L2 over the
# scales' norm (RowDotBackward.TOLERANCE).
BACKWARD = {
    "softmax_backward": (torch.softmax, torch._softmax_backward_data, lambda y, dy: y * dy, lambda y: y, 1e-4, 1e-4),
    "log_softmax_backward": (torch.log_softmax, torch._log_softmax_backward_data, lambda y, dy: dy, torch.exp,
                             1e-4, 1e-4),
}

# The losses: torch's reduction and kevo's tolerance for them (Tolerance.defaults(): softmax's absolute and relative
# bound on p, carried onto dx by 1 / n; the relative L2, also the loss's bound against its scale).
LOSSES = {"cross_entropy": ("mean", 1e-6, 1e-4, 1e-4), "cross_entropy_sum": ("sum", 1e-6, 1e-4, 1e-4)}
IGNORE_INDEX = -100

def labels_for(x, case, g, lowest):
    """A label a row, uniform over its finite columns above the lowest value (column 0 where none is), one row in
    eight ignored but never all, and every row in the constant case, as harness_cross_entropy.cu draws them."""
    rows, cols = x.shape
    usable = torch.isfinite(x) & (x > lowest)
    pick = torch.rand(rows, cols, generator=g, device="cuda").masked_fill(~usable, -1.0)
    labels = torch.where(usable.any(dim=1), pick.argmax(dim=1), torch.zeros(rows, dtype=torch.long, device="cuda"))
    ignored = torch.rand(rows, generator=g, device="cuda") < 0.125
    if case == "constant":
        ignored[:] = True
    elif bool(ignored.all()):
        ignored[0] = False
    return labels.masked_fill(ignored, IGNORE_INDEX)

def loss_case(op, x, xt, yt, labels):
    """torch's loss and dx on x (rounded to xt; bf16-fp32 runs torch in float32 on the bf16 values, dx float32),
    torch's loss from x in float32, and kevo's float64 references: dx, each element's scale, the loss and its scale,
    and the divisor n."""
    reduction = LOSSES[op][0]
    leaf = (x.to(xt) if yt == xt else x.to(xt).float()).detach().requires_grad_()
    loss = torch.nn.functional.cross_entropy(leaf, labels, ignore_index=IGNORE_INDEX, reduction=reduction)
    loss.backward()
    loss32 = torch.nn.functional.cross_entropy(x.to(xt).float(), labels, ignore_index=IGNORE_INDEX,
                                               reduction=reduction)
    x64 = x.to(xt).double()
    live = labels != IGNORE_INDEX
    n = int(live.sum().item())
    divisor = (n if reduction == "mean" else 1) if n > 0 else 0
    per = 1.0 / divisor if divisor else 0.0
    p = torch.softmax(x64, dim=-1)
    hot = torch.zeros_like(p).scatter_(1, labels.clamp(min=0)[:, None], 1.0)
    keep = live[:, None].double()
    ref = keep * per * (p - hot)
    scale = keep * per * (p + hot)
    rowmax = x64.max(dim=-1).values
    at = x64.gather(1, labels.clamp(min=0)[:, None])[:, 0]
    lse_sum = torch.exp(x64 - rowmax[:, None]).sum(dim=-1)
    row_loss = (rowmax - at) + torch.log(lse_sum)
    row_scale = (rowmax - at).abs() + torch.log(lse_sum) + 1
    ref_loss = (row_loss[live].sum() / divisor).item() if divisor else (math.nan if reduction == "mean" else 0.0)
    loss_scale = (row_scale[live].sum() / divisor).item() if divisor else 0.0
    return leaf.grad.double(), ref, scale, p, per, loss.item(), loss32.item(), ref_loss, loss_scale

def loss_ratio(got, ref, scale, tol):
    """A loss's error over kevo's bound (tol of its scale plus a float32 ulp); NaN must meet NaN (all rows ignored)."""
    if math.isnan(ref):
        return 0.0 if math.isnan(got) else math.inf
    r = torch.tensor(ref, dtype=torch.float32, device="cuda")
    ulp32 = (torch.nextafter(r, torch.tensor(math.inf, device="cuda")) - r).item()
    return abs(got - ref) / (tol * scale + ulp32)

# The dtypes (x's, the output's) a training operator is calibrated in.
TRAINING_PAIRS = {"fp32": (torch.float32, torch.float32), "bf16": (torch.bfloat16, torch.bfloat16),
                  "fp16": (torch.float16, torch.float16), "bf16-fp32": (torch.bfloat16, torch.float32)}

def against_scale(err, allowance, best, scale, rel_l2_bound):
    """A case's errors judged as the training harnesses judge them: each element against its allowance, and the
    case's L2 relative to the elements' scales against the bound plus the rounded reference's own L2."""
    scale_l2 = scale.norm().item()
    rel_l2 = err.norm().item() / scale_l2 if scale_l2 > 0 else 0.0
    best_l2 = best.norm().item() / scale_l2 if scale_l2 > 0 else 0.0
    return {"worstElementRatio": (err / allowance).max().item() if err.numel() else 0.0,
            "relativeL2": rel_l2, "bestRelativeL2": best_l2,
            "caseRatio": rel_l2 / (rel_l2_bound + ROUNDING * best_l2)}

def calibrate_loss(op, out):
    _, ABS, REL, REL_L2 = LOSSES[op]
    g = torch.Generator(device="cuda").manual_seed(7)
    pairs = TRAINING_PAIRS
    rows = []
    for name, (xt, yt) in pairs.items():
        for (r, c) in SHAPES:
            for case, x32 in cases(r, c, g, torch.finfo(xt).min):
                labels = labels_for(x32.to(xt).float(), case, g, torch.finfo(xt).min)
                dx, ref, scale, p, per, got, got32, ref_loss, loss_scale = loss_case(op, x32, xt, yt, labels)
                allowance = per * (ABS + REL * p) + ulp(ref, yt) + FLT_MIN * (1 + per)
                judged = against_scale((dx - ref).abs(), allowance, ref.to(yt).double() - ref, scale, REL_L2)
                rows.append({"dtype": name, "shape": f"{r}x{c}", "case": case, **judged,
                             "loss": got, "lossFloat32": got32, "referenceLoss": ref_loss,
                             "lossRatio": loss_ratio(got, ref_loss, loss_scale, REL_L2),
                             "lossFloat32Ratio": loss_ratio(got32, ref_loss, loss_scale, REL_L2)})
    summary = {}
    for name in pairs:
        mine = [x for x in rows if x["dtype"] == name]
        summary[name] = {key: worst(x[key] for x in mine)
                         for key in ("worstElementRatio", "caseRatio", "lossRatio", "lossFloat32Ratio")}
        print(f"{name}: torch's worst dx element at {summary[name]['worstElementRatio']:.3f} of its allowance, worst "
              f"case at {summary[name]['caseRatio']:.3f} of its bound; its loss at {summary[name]['lossRatio']:.3f} "
              f"of the loss's bound ({summary[name]['lossFloat32Ratio']:.3f} computed from x in float32)")
    return pairs, rows, summary, {"reduction": LOSSES[op][0], "absolute": ABS, "relative": REL,
                                  "relativeL2AndLoss": REL_L2, "roundingAllowance": ROUNDING}

def gradients(p, x, g):
    """dy as BackwardInputs draws it, in float64: row r of kind r % 4 (normal, sparse, p - onehot, -onehot / rows), the
    label never on a masked entry (x = -inf)."""
    rows, cols = p.shape
    normal = torch.randn(rows, cols, generator=g, device="cuda", dtype=torch.float64)
    sparse = torch.where(torch.rand(rows, cols, generator=g, device="cuda") < 0.9, 0.0, normal)
    pick = torch.rand(rows, cols, generator=g, device="cuda").masked_fill(torch.isneginf(x), -1.0)
    onehot = torch.zeros_like(p).scatter_(1, pick.argmax(dim=1, keepdim=True), 1.0)
    kind = (torch.arange(rows, device="cuda") % 4)[:, None]
    return torch.where(kind == 0, normal, torch.where(kind == 1, sparse,
                       torch.where(kind == 2, p - onehot, -onehot / rows)))

def backward_case(op, x, xt, yt, g):
    """torch's backward on consistent y and dy of x, kevo's float64 reference, each element's scale and where the
    answer must be exact."""
    fwd, bwd, term, weight, _, _ = BACKWARD[op]
    y = fwd(x.double(), dim=-1).to(xt)
    dy = gradients(weight(y.double()), x, g).to(xt)
    # bf16-fp32: bf16 y and dy, float32 dx; torch's backward then runs in float32 on the bf16 values.
    dx = bwd(dy.to(yt), y.to(y.dtype if yt == xt else yt), -1, yt).double()
    y64, dy64 = y.double(), dy.double()
    t = term(y64, dy64)
    dot = t.sum(dim=-1, keepdim=True)
    ref = y64 * (dy64 - dot) if op == "softmax_backward" else dy64 - torch.exp(y64) * dot
    term_abs = t.abs().sum(dim=-1, keepdim=True)
    scale = dy64.abs() + weight(y64) * term_abs
    # What flushing a subnormal w(y), or a subnormal answer, may cost (harness_backward.cu's kv_flushed): the harness's
    # bound adds it, so the calibration does too, or it would fail torch wherever exp(y) is subnormal (y < -87) for a
    # bound kevo never applies.
    flushed = FLT_MIN * (1 + dy64.abs() + term_abs)
    exact = (y64 == 0) if op == "softmax_backward" else torch.isneginf(y64)
    return dx, ref, scale, flushed, exact

def calibrate_backward(op, out):
    *_, ABS, REL_L2 = BACKWARD[op]
    g = torch.Generator(device="cuda").manual_seed(7)
    pairs = TRAINING_PAIRS
    rows = []
    for name, (xt, yt) in pairs.items():
        for (r, c) in SHAPES:
            for case, x32 in cases(r, c, g, torch.finfo(xt).min):
                x = x32.to(xt).float()
                dx, ref, scale, flushed, exact = backward_case(op, x, xt, yt, g)
                kept = ~exact
                judged = against_scale((dx - ref).abs()[kept], (ABS * scale + ulp(ref, yt) + flushed)[kept],
                                       (ref.to(yt).double() - ref)[kept], scale[kept], REL_L2)
                rows.append({"dtype": name, "shape": f"{r}x{c}", "case": case, **judged,
                             "exactMissed": int((dx[exact] != ref[exact]).sum().item())})
    summary = {}
    for name in pairs:
        mine = [x for x in rows if x["dtype"] == name]
        summary[name] = {"worstElementRatio": worst(x["worstElementRatio"] for x in mine),
                         "worstCaseRatio": worst(x["caseRatio"] for x in mine),
                         "exactMissed": sum(x["exactMissed"] for x in mine)}
        print(f"{name}: torch's worst element at {summary[name]['worstElementRatio']:.3f} of its allowance, worst "
              f"case at {summary[name]['worstCaseRatio']:.3f} of its bound; exact answers missed "
              f"{summary[name]['exactMissed']}")
    return pairs, rows, summary, {"absoluteOfScale": ABS, "relativeL2OfScale": REL_L2, "roundingAllowance": ROUNDING}

def cases(rows, cols, g, lowest):
    """kevo's ten input cases in float32, the lowest-mask case's masked entries at `lowest`, the lowest finite value of
    x's type, as the harness draws them (float32's lowest overflows to -inf in a 16-bit type, which is the causal
    case, not this one)."""
    n = lambda s: torch.randn(rows, cols, generator=g, device="cuda") * s
    yield "normal-1", n(1)
    yield "normal-4", n(4)
    yield "normal-20", n(20)
    yield "uniform-500-1000", 500 + 500 * torch.rand(rows, cols, generator=g, device="cuda")
    yield "uniform-neg", -1000 + 500 * torch.rand(rows, cols, generator=g, device="cuda")
    masked = n(4)
    masked[torch.rand(rows, cols, generator=g, device="cuda") < 0.35] = -math.inf
    masked[:, 0] = 1.0
    yield "masked", masked
    yield "constant", (10 * torch.randn(rows, 1, generator=g, device="cuda")).expand(rows, cols).contiguous()
    dom = n(1)
    dom[torch.arange(rows), torch.randint(0, cols, (rows,), generator=g, device="cuda")] += 30
    yield "dominant", dom
    prefix = 1 + torch.randint(0, (cols + 1) // 2, (rows, 1), generator=g, device="cuda")
    keep = torch.arange(cols, device="cuda")[None, :] < prefix
    yield "causal", torch.where(keep, n(4), torch.tensor(-math.inf, device="cuda"))
    low = torch.where(keep, n(4), torch.tensor(lowest, device="cuda"))
    low[::4] = lowest
    yield "lowest-mask", low

def worst(values):
    """The largest of values, NaN if any is NaN: Python's max compares NaN as neither larger nor smaller, so it would
    report whatever came first or last."""
    values = list(values)
    return math.nan if any(math.isnan(v) for v in values) else max(values)

def ulp(ref, dtype):
    """The spacing of dtype's values at |ref|, upward, as the harness's kv_ulp takes it (a negative ref's spacing was
    taken downward here before, a negative allowance, which only made the calibration stricter than kevo)."""
    a = ref.abs()
    if dtype == torch.float32:
        r = a.float()
        return (torch.nextafter(r, torch.tensor(math.inf, device="cuda")) - r).double()
    r = a.to(dtype)
    bits = r.view(torch.int16)
    up, below = (bits + 1).view(dtype).double(), (bits - 1).view(dtype).double()
    # At the top of the range the spacing below the largest finite value, as the harness takes it.
    return torch.where(torch.isinf(up), r.double() - below, up - r.double())

def main():
    out = sys.argv[1]
    op = sys.argv[sys.argv.index("--op") + 1] if "--op" in sys.argv else "softmax"
    if op not in OPS and op not in BACKWARD and op not in LOSSES:
        sys.exit(f"--op {op}: not one of {', '.join(list(OPS) + list(BACKWARD) + list(LOSSES))}")
    if op in BACKWARD or op in LOSSES:
        pairs, rows, summary, rule = (calibrate_backward if op in BACKWARD else calibrate_loss)(op, out)
        record(out, op, pairs, rows, summary, rule)
        return
    fn, ABS, REL, REL_L2 = OPS[op]
    g = torch.Generator(device="cuda").manual_seed(7)
    pairs = {"bf16": (torch.bfloat16, torch.bfloat16), "fp16": (torch.float16, torch.float16),
             "bf16-fp32": (torch.bfloat16, torch.float32)}
    if op != "softmax":
        pairs["fp32"] = (torch.float32, torch.float32)  # softmax's float32 bound came from the seeds (measurement.md)
    rows = []
    for name, (xt, yt) in pairs.items():
        for (r, c) in SHAPES:
            for case, x32 in cases(r, c, g, torch.finfo(xt).min):
                x = x32.to(xt)
                y = (fn(x, dim=-1) if yt == xt else fn(x, dim=-1, dtype=yt)).double()
                ref = fn(x.double(), dim=-1)
                infinite = torch.isinf(ref)
                overflowed = torch.isinf(y) & ~infinite & torch.isinf(ref.to(yt).double())
                finite = ~infinite & ~overflowed
                err = (y - ref).abs()[finite]
                allowance = (ABS + REL * ref.abs() + ulp(ref, yt))[finite]
                best = (ref.to(yt).double() - ref)[finite]
                ref_l2 = ref[finite].norm()
                rel_l2 = (err.norm() / ref_l2).item() if ref_l2 > 0 else 0.0
                best_l2 = (best.norm() / ref_l2).item() if ref_l2 > 0 else 0.0
                rows.append({"dtype": name, "shape": f"{r}x{c}", "case": case,
                             "worstElementRatio": (err / allowance).max().item() if err.numel() else 0.0,
                             "relativeL2": rel_l2, "bestRelativeL2": best_l2,
                             "caseRatio": rel_l2 / (REL_L2 + ROUNDING * best_l2),
                             "overBest": rel_l2 / best_l2 if best_l2 > 0 else None,
                             "infiniteRefsMissed": int((y[infinite] != ref[infinite]).sum().item()),
                             "overflowedToInfinity": int(overflowed.sum().item())})
    summary = {}
    for name in pairs:
        mine = [x for x in rows if x["dtype"] == name]
        summary[name] = {"worstElementRatio": worst(x["worstElementRatio"] for x in mine),
                         "worstCaseRatio": worst(x["caseRatio"] for x in mine),
                         "worstOverBest": worst(x["overBest"] or 0 for x in mine),
                         "infiniteRefsMissed": sum(x["infiniteRefsMissed"] for x in mine),
                         "overflowedToInfinity": sum(x["overflowedToInfinity"] for x in mine)}
        print(f"{name}: torch's worst element at {summary[name]['worstElementRatio']:.3f} of its allowance, worst "
              f"case at {summary[name]['worstCaseRatio']:.3f} of its bound, relative L2 at most "
              f"{summary[name]['worstOverBest']:.3f}x the best answer's; infinite refs missed "
              f"{summary[name]['infiniteRefsMissed']}, answers overflowed to infinity {summary[name]['overflowedToInfinity']}")
    record(out, op, pairs, rows, summary, {"absolute": ABS, "relative": REL, "relativeL2": REL_L2,
                                           "roundingAllowance": ROUNDING})

def record(out, op, pairs, rows, summary, rule):
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    json.dump({"what": f"torch.{op} in {', '.join(pairs)} against kevo's tolerance for {op}", "op": op,
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
               "command": "python3 bench/calibrate_dtypes.py " + " ".join(sys.argv[1:]), "commit": os.environ.get("KEVO_COMMIT", "unknown"),
               "nvidiaSmi": smi, "torch": torch.__version__, "rule": rule, "summary": summary, "rows": rows},
              open(out, "w"), indent=1)

main()
