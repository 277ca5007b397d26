#!/usr/bin/env python3
"""kevo's kernels next to torch.softmax and Triton's fused softmax (the kernel of Triton's fused-softmax tutorial), on
the same GPU in the same process, timed the same way for all: CUDA events around each launch, L2 flushed before
each (a 2x L2 buffer read, outside the events), the variants interleaved round by round, the GPU kept busy while
the host enqueues each timed launch (as nvbench's blocking kernel does), medians reported with the spread. The memory
floor is the faster of two plain copies of the same bytes, as in kevo's evaluator: torch's copy_ (cudaMemcpy) and a
Triton copy kernel. Each kevo kernel file is compiled with
NVRTC (--std=c++17, kevo.h supplied in memory) and launched by its own /*@kevo plan; its output is checked
against a float64 torch softmax before it is timed.
Usage (GPU host with torch and triton):
  python3 bench/compare_torch.py [--suite SUITE.yaml] [--dtype fp32|bf16|fp16|bf16-fp32] [--rounds N] OUT.json
      KERNEL.cu [...]
(default suite: the standard one; 60 rounds). Each median carries a 95% interval (order statistics), and each row
the shares of rounds in which the first kevo kernel was faster and slower than each peer: the variants are timed
round by round, so a round is a paired comparison, the measure to read where two medians sit within each other's intervals. The record's
"rows" list gives, per shape, the first kernel's median beside the copy, torch.softmax and the tutorial kernel (null
where Triton cannot run the row), and those shares.
"""
import json, math, os, statistics, sys

import torch
import triton

# Shared with family.py (and export_torch.py, which takes Cuda, KevoKernel and suite_shapes from here):
from kevo_bench import (DTYPES, ROUNDS, WARMUP, Cuda, Flush, KevoKernel, floor_copies, shares,  # noqa: F401
                        stamp, suite_shapes, summary, time_rounds, triton_copy, triton_rows_refusal, triton_softmax)

SUITE = "evaluator/suites/standard.yaml"
# A kernel's largest error against the float64 softmax before it is called wrong and not timed, by y's dtype:
# about 2 units in the last place near 1 in the 16-bit types.
MAX_ERROR = {torch.float32: 1e-5, torch.bfloat16: 1.6e-2, torch.float16: 2e-3}


def main():
    args = sys.argv[1:]
    suite, dtype = SUITE, "fp32"
    rounds = ROUNDS
    while args[:1] in (["--suite"], ["--dtype"], ["--rounds"]):
        if args[0] == "--suite":
            suite = args[1]
        elif args[0] == "--dtype":
            dtype = args[1]
        else:
            rounds = int(args[1])
        args = args[2:]
    xt, yt = DTYPES[dtype]
    out, kernels = args[0], args[1:]
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    sms, arch = props.multi_processor_count, f"sm_{props.major}{props.minor}"
    torch.zeros(1, device="cuda")
    cuda = Cuda()
    kevo = [KevoKernel(cuda, k, arch, sms, dtype) for k in kernels]
    first = "kevo " + os.path.basename(kevo[0].path) if kevo else None  # the kernel the record's rows follow
    stream = torch.cuda.current_stream()
    flush = Flush(props)
    shapes_out = []
    for rows, cols in suite_shapes(suite):
        x = (torch.randn(rows, cols, device="cuda") * 4).to(xt)
        ref = torch.softmax(x.double(), dim=1)
        torch.cuda.empty_cache()
        y = torch.empty(rows, cols, dtype=yt, device="cuda")
        # torch.softmax allocates its output (from torch's caching allocator): timed as a user calls it, in the dtype
        # asked (dtype=torch.float32 on bf16 logits for bf16-fp32). The copies convert where y is wider: they move the
        # bytes a softmax must.
        softmax = (lambda: torch.softmax(x, dim=1)) if xt == yt else (lambda: torch.softmax(x, dim=1, dtype=yt))
        variants = {**floor_copies(x, y), "torch.softmax": softmax}
        triton_copy(x, y)
        assert torch.equal(x.to(yt), y), "the Triton copy kernel does not copy: no floor from it"
        notes = {}
        refusal = triton_rows_refusal(cols)
        if refusal is None:
            try:
                triton_softmax(x, y, sms)
                torch.cuda.synchronize()
                err = (y.double() - ref).abs().max().item()
                variants["triton fused (tutorial)"] = lambda: triton_softmax(x, y, sms)
                notes["triton fused (tutorial)"] = {"maxAbsError": err}
            except Exception as e:  # noqa: BLE001 - recorded, not hidden
                notes["triton fused (tutorial)"] = {"error": str(e).splitlines()[0][:200]}
        else:
            notes["triton fused (tutorial)"] = {"error": refusal}
        for k in kevo:
            name = "kevo " + os.path.basename(k.path)
            plan, ws = k.prepare(rows, cols)
            run = k.bind(plan, ws, x, y, stream.cuda_stream)
            y.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            err = (y.double() - ref).abs().max().item()
            notes[name] = {"maxAbsError": err, "kernels": [l["kernel"] for l in plan["launches"]]}
            if not math.isfinite(err) or err > MAX_ERROR[yt]:
                notes[name]["error"] = "wrong output: not timed"
                continue
            variants[name] = run
        per_round = time_rounds(variants, rounds, flush)
        row = {"shape": f"{rows}x{cols}", "results": {}}
        copies = {n: statistics.median(per_round[n]) for n in ("copy", "copy kernel (triton)")}
        floor_by = min(copies, key=copies.get)
        copy_median = copies[floor_by]
        row["floorBy"] = floor_by
        for n, raw in per_round.items():
            row["results"][n] = {**summary(raw, copy_median), **notes.get(n, {})}
        if first in per_round:
            # Event times come in steps, so many rounds tie: both shares are kept, ties are the rest.
            row["kevoFasterShare"] = {p: shares(per_round[first], per_round[p])
                                      for p in ("torch.softmax", "triton fused (tutorial)") if p in per_round}
        for n, note in notes.items():
            row["results"].setdefault(n, note)
        shapes_out.append(row)
        line = "  ".join(f"{n} {v['medianUs']:.1f}us" if "medianUs" in v else f"{n} n/a"
                         for n, v in row["results"].items())
        print(f"{rows}x{cols}: {line}", flush=True)
    record = {"what": "kevo kernels vs torch.softmax vs Triton fused softmax (tutorial), same GPU, same process",
              **stamp("bench/compare_torch.py", sys.argv[1:]), "torch": torch.__version__,
              "triton": triton.__version__, "nvrtc": cuda.nvrtc_version, "dtype": dtype,
              "method": f"{WARMUP} warm-up rounds, {rounds} interleaved rounds, L2 flushed (2x L2 read) before each "
                        "launch, CUDA events, median",
              "shapes": shapes_out}
    geo = {}
    for n in {n for s in shapes_out for n in s["results"]}:
        fr = [s["results"][n]["floorFraction"] for s in shapes_out if "floorFraction" in s["results"].get(n, {})]
        if len(fr) == len(shapes_out):
            geo[n] = math.exp(sum(math.log(f) for f in fr) / len(fr))
    record["floorGeomeanOverSuite"] = geo
    if kevo:
        med = lambda s, n: s["results"].get(n, {}).get("medianUs")
        record["rows"] = [{"shape": s["shape"], "kevo_us": med(s, first), "copy_us": med(s, s["floorBy"]),
                           "torch_us": med(s, "torch.softmax"), "triton_us": med(s, "triton fused (tutorial)"),
                           "kevo_faster_share": s.get("kevoFasterShare")}
                          for s in shapes_out]
    json.dump(record, open(out, "w"), indent=2)
    print(json.dumps(geo, indent=1))


if __name__ == "__main__":
    main()
