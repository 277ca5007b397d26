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
as in kevo's evaluator. For softmax and log_softmax in one dtype that is a copy of x into y.

Per shape the record gives the medians, three ratios (floor, torch's and Triton's median over kevo's: above 1 kevo
is faster; the first is kevo's floor fraction) and a verdict against each: faster, slower or a tie. A round times
every variant once, back to back, so a round pairs kevo with each peer: the verdict is read off the median of the
per-round ratios peer / kevo and its 95% interval by order statistics (the interval a sign test gives, free of any
assumption about the times' distribution): faster where the whole interval is above 1, slower where it is below 1,
a tie where it holds 1, i.e. where the rounds cannot tell the two apart.

Usage (GPU host with torch, Triton and NVRTC; from the repository root):
  KEVO_COMMIT=$(git rev-parse HEAD) python3 bench/family.py --out OUT.json \\
      --job softmax:fp32:KERNEL.cu:standard --job log_softmax:bf16:KERNEL.cu:evaluator/suites/llm.yaml ...
  python3 bench/family.py --out OUT.json --jobs JOBS.yaml     (or .json)
A job is op:dtype:kernel:suite; a suite is a path or a name under evaluator/suites/. A jobs file holds
{"jobs": [{"op": ..., "dtype": ..., "kernel": ..., "suite": ...}, ...]}, each dtype and suite a name or a list
(the job on each dtype and suite of its lists); YAML needs PyYAML, JSON does not.
"""
import argparse, json, math, os, sys
from dataclasses import dataclass
from typing import Callable, Optional

# torch and kevo_bench (which imports Triton) are imported once the arguments are read, by load_gpu_modules(): --help
# and the jobs' parsing need neither. The registry below names them only inside functions called after that.
torch = None
kb = None

CHECK_ELEMENTS = 1 << 24  # the float64 check goes a block of rows at a time, about this many elements, to bound memory


def load_gpu_modules():
    global torch, kb
    import torch as torch_module
    import kevo_bench
    torch, kb = torch_module, kevo_bench


# ---- the operators ----
@dataclass(frozen=True)
class Op:
    """Everything that differs between the family's operators. Adding one (issue 43) is adding an entry to OPS, the
    key being kevo's op id, as a kernel file's header says it:

      masked_softmax      one entry a mask kind (causal, padding, ...): inputs x and mask (the mask as stored, so
                          that its bytes count in the floor), torch: torch.softmax(x * scale + mask, -1), the
                          reference the same in float64;
      softmax_backward    inputs y (a softmax's output) and dy, output dx: torch._softmax_backward_data(dy, y, -1,
                          x's dtype); reference y * (dy - sum(dy * y));
      log_softmax_backward  inputs y (log-probabilities) and dy: torch._log_softmax_backward_data(dy, y, -1, x's
                          dtype); reference dy - exp(y) * sum(dy);
      cross_entropy       inputs x and target (rows,), output a loss per row: torch.nn.functional.cross_entropy(x,
                          target, reduction="none"); reference logsumexp(x) - x[target].
    """
    # (rows, cols, x's torch dtype, generator) -> the input tensors by the names kevo's plans pass ("x", ...)
    inputs: Callable
    # (inputs, y's torch dtype) -> the empty output that kevo's and Triton's kernels write
    output: Callable
    # torch's op: its name in the record, and (inputs, y's dtype) -> a call of it as a user makes it
    torch_name: str
    torch_call: Callable
    # (inputs, a slice of rows) -> the float64 answer for those rows
    reference: Callable
    # kevo's tolerance for the op (docs/measurement.md): per element absolute + relative * |ref|, per case relative L2
    tolerance: tuple
    # the Triton kernel written for the op: its name in the record, and (inputs, output, SMs) -> a call of it
    triton_name: Optional[str] = None
    triton_call: Optional[Callable] = None
    # (rows, cols) -> why the Triton kernel is not run on that shape, or None
    triton_refusal: Callable = lambda rows, cols: kb.triton_rows_refusal(cols)
    # the output's name in kevo's plans
    output_name: str = "y"


def logits(rows, cols, xt, gen):
    """x as compare_torch.py draws it, normal with standard deviation 4; the same x for every op at a shape."""
    return {"x": (torch.randn(rows, cols, device=gen.device, generator=gen) * 4).to(xt)}


def like_x(inputs, yt):
    return torch.empty(inputs["x"].shape, dtype=yt, device=inputs["x"].device)


def torch_rowwise(name):
    """torch.NAME(x, dim=-1) as a user calls it: it allocates its output, from torch's caching allocator; dtype= only
    where y is wider than x (bf16 logits, float32 out)."""
    def call(inputs, yt):
        f, x = getattr(torch, name), inputs["x"]
        return (lambda: f(x, dim=-1)) if x.dtype == yt else (lambda: f(x, dim=-1, dtype=yt))
    return call


def torch_reference(name):
    """torch.NAME over float64 rows of x."""
    return lambda inputs, rows: getattr(torch, name)(inputs["x"][rows].double(), dim=-1)


def triton_rowwise(kernel):
    """One of kevo_bench's one-program-a-row Triton kernels, launched as the tutorial launches its own."""
    def call(inputs, y, sms):
        k = getattr(kb, kernel)
        return lambda: kb.triton_rows(k, inputs["x"], y, sms)
    return call


OPS = {
    "softmax": Op(inputs=logits, output=like_x, torch_name="torch.softmax", torch_call=torch_rowwise("softmax"),
                  reference=torch_reference("softmax"), tolerance=(1e-6, 1e-4, 1e-4),
                  triton_name="triton fused softmax (tutorial)", triton_call=triton_rowwise("triton_softmax_kernel")),
    "log_softmax": Op(inputs=logits, output=like_x, torch_name="torch.log_softmax",
                      torch_call=torch_rowwise("log_softmax"), reference=torch_reference("log_softmax"),
                      tolerance=(1e-4, 1e-5, 1e-5), triton_name="triton log_softmax (tutorial's style)",
                      triton_call=triton_rowwise("triton_log_softmax_kernel")),
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
    of another op or dtype, a suite with no shapes."""
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
        if not kb.suite_shapes(job.suite):
            parser.error(f"{job.name()}: {job.suite} has no shapes")


# ---- the check against float64 ----
def ulp(dtype, held):
    """One unit in the last place of dtype at |held| (a value dtype holds): what rounding to dtype may cost a correct
    kernel, kevo's allowance beyond the float32 tolerance. The smallest subnormal at least."""
    info = torch.finfo(dtype)
    a = held.abs().clamp(max=info.max)
    _, exponent = torch.frexp(a)  # a = m 2^exponent, m in [0.5, 1): the spacing there is 2^(exponent - 1) eps
    spacing = torch.ldexp(torch.full_like(a, info.eps), exponent - 1)
    return spacing.clamp(min=info.tiny * info.eps)


def check(op, inputs, out):
    """out against op's float64 reference, with kevo's rule: per element |out - ref| <= absolute + relative |ref| +
    one unit in the last place of out's type, an infinite ref only exactly; per case the relative L2 error at most
    the op's bound + 1.25x that of the reference rounded to out's type. A block of rows at a time."""
    absolute, relative, l2 = op.tolerance
    per = max(1, CHECK_ELEMENTS // max(1, out[0].numel()))
    violations = nonfinite = 0
    max_err = worst = err_sq = ref_sq = held_sq = 0.0
    for start in range(0, out.shape[0], per):
        rows = slice(start, min(out.shape[0], start + per))
        ref = op.reference(inputs, rows)
        got = out[rows].double()
        held = ref.to(out.dtype).double()  # the best answer out's type holds
        exact = torch.isinf(ref)
        violations += int((exact & (got != ref)).sum())
        finite = ~exact & torch.isfinite(got)
        nonfinite += int((~exact & ~torch.isfinite(got)).sum())
        err = torch.where(finite, (got - ref).abs(), 0.0)
        bound = absolute + relative * ref.abs() + ulp(out.dtype, held)
        violations += int((err > bound).sum())
        if finite.any():
            max_err = max(max_err, float(err.max()))
            worst = max(worst, float((err / bound).max()))
        counted = finite & torch.isfinite(held)  # whole-case errors over the answers out's type holds finitely
        err_sq += float((err[counted] ** 2).sum())
        ref_sq += float((ref[counted] ** 2).sum())
        held_sq += float(((held - ref)[counted] ** 2).sum())
    norm = math.sqrt(ref_sq) or 1.0
    rel_l2, l2_bound = math.sqrt(err_sq) / norm, l2 + 1.25 * math.sqrt(held_sq) / norm
    return {"ok": violations == 0 and nonfinite == 0 and rel_l2 <= l2_bound, "maxAbsError": max_err,
            "worstOfAllowance": worst, "violations": violations, "nonfinite": nonfinite, "relativeL2": rel_l2,
            "relativeL2Bound": l2_bound}


def admit(role, op, inputs, first_run, timed, variants, checks):
    """Runs an implementation once and checks its output. kevo's is timed only if it passes, as kevo times a candidate;
    a peer's is timed all the same, its check recorded beside it, as kevo's evaluator times its vendor baseline: the
    peer is what users run, but no one should take it for the ground truth. One that cannot run is not timed."""
    try:
        out = first_run()
        torch.cuda.synchronize()
        checks[role] = check(op, inputs, out)
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


def implementations(op, kernel, inputs, y, rows, cols, ctx, row):
    """kevo's, torch's and Triton's implementations of the op on these inputs, each run once and checked (admit):
    the calls to time, and every check or reason one is not run."""
    variants, checks = {}, {}

    def poisoned(call):
        """One run into y filled with NaN first, so that an element left unwritten fails the check."""
        def first_run():
            y.fill_(float("nan"))
            call()
            return y
        return first_run

    try:
        plan, ws = kernel.prepare(rows, cols)
        run = kernel.bind_tensors(plan, {**inputs, op.output_name: y, "ws": ws}, rows, cols, ctx["stream"])
        row["kevo_launches"] = [launch["kernel"] for launch in plan["launches"]]
        admit("kevo", op, inputs, poisoned(run), run, variants, checks)
    except Exception as e:  # noqa: BLE001 - no plan for this shape, or one that does not bind: on the row
        checks["kevo"] = {"ok": False, "error": str(e)}
    torch_call = op.torch_call(inputs, y.dtype)
    admit("torch", op, inputs, torch_call, torch_call, variants, checks)
    refusal = op.triton_refusal(rows, cols) if op.triton_call else "no Triton kernel for this op"
    if refusal is None:
        triton_call = op.triton_call(inputs, y, ctx["sms"])
        admit("triton", op, inputs, poisoned(triton_call), triton_call, variants, checks)
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


def bench_row(job, kernel, rows, cols, rounds, seed, ctx):
    """One shape of a job: inputs drawn, every implementation checked, all timed together with the floor."""
    op = OPS[job.op]
    xt, yt = kb.DTYPES[job.dtype]
    gen = torch.Generator(device=ctx["device"])
    gen.manual_seed(seed)
    inputs = op.inputs(rows, cols, xt, gen)
    y = op.output(inputs, yt)
    row = {"op": job.op, "dtype": job.dtype, "shape": f"{rows}x{cols}", "suite": job.suite, "kernel": job.kernel}
    variants, checks = implementations(op, kernel, inputs, y, rows, cols, ctx, row)
    row["floor_bytes"] = sum(t.nbytes for t in inputs.values()) + y.nbytes
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


TABLE_HEAD = (f"{'op':12} {'dtype':9} {'shape':>14} {'kevo us':>10} {'floor us':>10} {'torch us':>10} "
              f"{'triton us':>10}  {'floor':13} {'torch':13} {'triton':13}")


def table_line(r):
    return (f"{r['op']:12} {r['dtype']:9} {r['shape']:>14} {us_cell(r['kevo_us'])} {us_cell(r['floor_us'])} "
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
        "floor": "the faster of torch's copy_ and a Triton copy kernel moving floor_bytes (each input read once, the "
                 "output written once), half read and half written",
        "ratios": "floor_fraction = floor_us / kevo_us (1.0: the speed of a copy); speedup_vs_torch = torch_us / "
                  "kevo_us; speedup_vs_triton = triton_us / kevo_us: above 1, kevo is faster. A summary's geometric "
                  "means are over the shapes where both were timed",
        "tie": "vs_floor, vs_torch, vs_triton: from the per-round ratios peer / kevo (a round times all back to back): "
               "faster where their median's 95% interval (order statistics, a sign test's) lies above 1, slower "
               "where it lies below 1, tie where it holds 1",
        "peers": {name: {"torch": OPS[name].torch_name, "triton": OPS[name].triton_name}
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
        for r, c in kb.suite_shapes(job.suite):
            rows.append(bench_row(job, kernels[(job.kernel, job.dtype, job.op)], r, c, rounds, args.seed, ctx))
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
