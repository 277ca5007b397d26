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
Usage (on a GPU host with torch): python3 bench/calibrate_dtypes.py OUT.json [--op softmax|log_softmax]
"""
import datetime, json, math, os, subprocess, sys
import torch

SHAPES = [(32, 128), (1823, 781), (1024, 4096), (8, 128256), (1, 1000000)]
ROUNDING = 1.25
# Each operator: torch's function, and kevo's tolerance for it (absolute, relative per element; relative L2 per case).
OPS = {"softmax": (torch.softmax, 1e-6, 1e-4, 1e-4), "log_softmax": (torch.log_softmax, 1e-4, 1e-5, 1e-5)}

def cases(rows, cols, g):
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
    low = torch.where(keep, n(4), torch.tensor(torch.finfo(torch.float32).min, device="cuda"))
    low[::4] = torch.finfo(torch.float32).min
    yield "lowest-mask", low

def ulp(ref, dtype):
    if dtype == torch.float32:
        r = ref.float()
        return (torch.nextafter(r, torch.tensor(math.inf, device="cuda")) - r).double()
    r = ref.to(dtype)
    up = (r.view(torch.int16) + 1).view(dtype)
    return (up.double() - r.double())

def main():
    out = sys.argv[1]
    op = sys.argv[sys.argv.index("--op") + 1] if "--op" in sys.argv else "softmax"
    fn, ABS, REL, REL_L2 = OPS[op]
    g = torch.Generator(device="cuda").manual_seed(7)
    pairs = {"bf16": (torch.bfloat16, torch.bfloat16), "fp16": (torch.float16, torch.float16),
             "bf16-fp32": (torch.bfloat16, torch.float32)}
    if op != "softmax":
        pairs["fp32"] = (torch.float32, torch.float32)  # softmax's float32 bound came from the seeds (measurement.md)
    rows = []
    for name, (xt, yt) in pairs.items():
        for (r, c) in SHAPES:
            for case, x32 in cases(r, c, g):
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
        summary[name] = {"worstElementRatio": max(x["worstElementRatio"] for x in mine),
                         "worstCaseRatio": max(x["caseRatio"] for x in mine),
                         "worstOverBest": max(x["overBest"] or 0 for x in mine),
                         "infiniteRefsMissed": sum(x["infiniteRefsMissed"] for x in mine),
                         "overflowedToInfinity": sum(x["overflowedToInfinity"] for x in mine)}
        print(f"{name}: torch's worst element at {summary[name]['worstElementRatio']:.3f} of its allowance, worst "
              f"case at {summary[name]['worstCaseRatio']:.3f} of its bound, relative L2 at most "
              f"{summary[name]['worstOverBest']:.3f}x the best answer's; infinite refs missed "
              f"{summary[name]['infiniteRefsMissed']}, answers overflowed to infinity {summary[name]['overflowedToInfinity']}")
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    json.dump({"what": f"torch.{op} in {', '.join(pairs)} against kevo's tolerance for {op}", "op": op,
               "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
               "command": "python3 bench/calibrate_dtypes.py " + " ".join(sys.argv[1:]), "commit": os.environ.get("KEVO_COMMIT", "unknown"),
               "nvidiaSmi": smi, "torch": torch.__version__, "rule": {"absolute": ABS, "relative": REL,
               "relativeL2": REL_L2, "roundingAllowance": ROUNDING}, "summary": summary, "rows": rows},
              open(out, "w"), indent=1)

main()
