#!/usr/bin/env python3
"""kevo export's torch package of a kernel on the GPU, of any operator it packages: builds it with this Python's torch,
checks it in float64 against torch's function for the package's operator (torch.softmax, torch.log_softmax:
OPERATORS below, the operator and dtype read from the package's kevo-export.json) with kevo's tolerance for that
operator as kevo's evaluator applies it (per element absolute + relative |ref| + one unit in the last place of y's
type; an infinite answer, a masked entry's log-probability, only exactly; the relative L2 bound plus 1.25x the best
answer's rounding) on the standard suite and 20 random shapes (rows 1..65536, cols 1..10^6, log-uniform, at most
MAX_ELEMENTS elements so the float64 reference fits in time), on three input cases each; checks its errors for other
dtypes, devices, layouts and dims; then times it beside the same file launched from kevo's own plan through NVRTC
(bench/compare_torch.py's KevoKernel) and torch's function, with compare_torch.py's method (one process, interleaved
rounds, L2 flushed before each launch, the GPU kept busy while the host enqueues, CUDA events, medians) and with
triton.testing.do_bench, and compares each shape's time with what `kevo eval --json` measured for the same file in
the same run.

masked_softmax, which torch has no one function for, is checked on every shape of the attention suite in every mask
kind of its masks: key (evaluator/suites/attention.yaml) and on 8 random attention layouts (two per kind), against
torch.softmax(scale * x + bias, dim=-1) in float64 (family.py's masked_reference: kevo's own reference, each score
rounded once to float32 as a kernel's fma holds it, bias -inf at a masked key, a fully masked row 0, checked a block
of rows at a time), masked keys and fully masked rows held to exactly 0; each case draws a scale of kevo's and the
kind's tensor at its edges (lengths of 0, mask rows masked throughout, -inf entries). It is timed beside the
composition users write (torch.softmax(x * scale + bias), family.py's torch_masked_softmax), and its misuse checks
cover the mask kind and the lengths and mask tensors.
Usage: python bench/export_torch.py --package DIR --kevo-json EVAL.json --kernel FILE --out OUT.json [--command TEXT]
"""
import argparse, datetime, faulthandler, importlib, json, math, os, statistics, subprocess, sys, time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402  (kevo's plan launched through NVRTC, and the timing method)
import family  # noqa: E402  (masked_softmax's inputs, float64 reference and torch composition)
import kevo_bench  # noqa: E402  (suites of attention shapes)

# Each operator kevo exports to torch: the torch function it is checked against and timed beside, and kevo's float32
# tolerance for it (absolute, relative, relative L2): Defaults.TOLERANCE_* for softmax, LogSoftmax.TOLERANCE. Kept
# here rather than read from the package, so that the package is checked against what it claims, not by it.
OPERATORS = {
    "softmax": {"torch": torch.softmax, "name": "torch.softmax", "tolerance": (1e-6, 1e-4, 1e-4)},
    "log_softmax": {"torch": torch.log_softmax, "name": "torch.log_softmax", "tolerance": (1e-4, 1e-5, 1e-5)},
    # No one torch function: its float64 reference and the torch composition it is timed beside are family.py's.
    "masked_softmax": {"torch": None, "name": "torch.softmax(x * scale + bias, dim=-1)",
                       "tolerance": (1e-6, 1e-4, 1e-4), "attention": True},
}
ROUNDING_ALLOWANCE = 1.25  # CheckCounts.ROUNDING_ALLOWANCE
MAX_ELEMENTS = 1 << 25
ROUNDS, WARMUP = 60, 10
RANDOM_ROUNDS = 20
ATTENTION_SUITE = "evaluator/suites/attention.yaml"
RANDOM_ATTENTION = 8  # random attention layouts, two in each mask kind
CHECK_ELEMENTS = 1 << 24  # an attention shape's float64 check goes a block of rows of about this many elements at a time
# kevo's scales (MaskedSoftmax.SCALE): 1/sqrt(d) for head dimensions 64, 80, 96, 128, 256, as float32s
SCALES = [torch.tensor(1 / math.sqrt(d), dtype=torch.float32).item() for d in (64, 80, 96, 128, 256)]


def build(package, module):
    """The extension, built the way the package's README says: load() where ninja exists, else setup.py, else nvcc
    and the host compiler by hand with torch's include and library paths. module: kevo_<op>."""
    from torch.utils import cpp_extension
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % torch.cuda.get_device_capability())
    start = time.time()
    attempts = []
    if cpp_extension.is_ninja_available():
        try:
            mod = cpp_extension.load(name=module, sources=[os.path.join(package, module + "_torch.cpp"),
                                                           os.path.join(package, module + ".cu")],
                                     extra_cflags=["-O3"], extra_cuda_cflags=["-O3"],
                                     build_directory=_fresh(os.path.join(package, "build-load")))
            return mod, "torch.utils.cpp_extension.load (ninja)", time.time() - start, attempts
        except Exception as e:  # noqa: BLE001 - recorded; the next way is tried
            attempts.append({"method": "load", "error": str(e)[-2000:]})
    else:
        attempts.append({"method": "load", "error": "ninja not available"})
    r = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace"], cwd=package, capture_output=True,
                       text=True)
    if r.returncode == 0:
        sys.path.insert(0, package)
        return importlib.import_module(module), "setup.py build_ext --inplace", time.time() - start, attempts
    attempts.append({"method": "setup.py", "error": (r.stdout + r.stderr)[-2000:]})
    mod = _by_hand(package, module)
    return mod, "nvcc + c++ by hand with torch's paths", time.time() - start, attempts


def _fresh(path):
    os.makedirs(path, exist_ok=True)
    return path


def _by_hand(package, module):
    import sysconfig
    from torch.utils import cpp_extension
    major, minor = torch.cuda.get_device_capability()
    out = _fresh(os.path.join(package, "build-hand"))
    try:
        includes, libraries = cpp_extension.include_paths(device_type="cuda"), cpp_extension.library_paths(device_type="cuda")
    except TypeError:  # torch before 2.6 took cuda=True
        includes, libraries = cpp_extension.include_paths(cuda=True), cpp_extension.library_paths(cuda=True)
    inc = [f"-I{p}" for p in includes] + [f"-I{sysconfig.get_paths()['include']}"]
    abi = f"-D_GLIBCXX_USE_CXX11_ABI={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"
    nvcc = os.path.join(cpp_extension.CUDA_HOME or "/usr/local/cuda", "bin", "nvcc")
    subprocess.run([nvcc, "-O3", "-std=c++17", f"-arch=sm_{major}{minor}", "-Xcompiler", "-fPIC", "-c",
                    os.path.join(package, module + ".cu"), "-o", os.path.join(out, "k.o")], check=True)
    subprocess.run(["c++", "-O3", "-std=c++20", "-fPIC", abi, f"-DTORCH_EXTENSION_NAME={module}",
                    "-DTORCH_API_INCLUDE_EXTENSION_H", *inc, "-c", os.path.join(package, module + "_torch.cpp"),
                    "-o", os.path.join(out, "b.o")], check=True)
    libs = [f"-L{p}" for p in libraries]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    # nvcc's own runtime, found at import through an rpath: torch may carry a runtime of another CUDA version.
    cudart = os.path.realpath(os.path.join(os.path.dirname(nvcc), "..", "lib64"))
    rpaths = [f"-Wl,-rpath,{p[2:]}" for p in libs] + [f"-Wl,-rpath,{cudart}"]
    subprocess.run(["c++", "-shared", "-o", os.path.join(out, module + suffix), os.path.join(out, "b.o"),
                    os.path.join(out, "k.o"), *libs, "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python",
                    "-lc10_cuda", "-ltorch_cuda", f"-L{cudart}", "-lcudart", *rpaths], check=True)
    sys.path.insert(0, out)
    return importlib.import_module(module)


class Task:
    """What the package computes and in which dtypes, from its kevo-export.json: the torch function to hold it to,
    kevo's tolerance for the operator, x's and y's torch dtypes."""

    def __init__(self, provenance):
        self.op, self.dtype = provenance["op"], provenance["dtype"]
        if self.op not in OPERATORS:
            raise SystemExit(f"kevo-export.json: operator {self.op}: no torch function to check it against here "
                             f"(known: {', '.join(OPERATORS)})")
        known = OPERATORS[self.op]
        self.torch, self.torch_name, self.tolerance = known["torch"], known["name"], known["tolerance"]
        self.attention = known.get("attention", False)
        self.x, self.y = compare_torch.DTYPES[self.dtype]
        self.module = "kevo_" + self.op

    def reference(self, x):
        """torch's function over the last dimension, in float64, of x as stored."""
        return self.torch(x.double(), dim=-1)

    def in_torch(self, x):
        """What torch itself computes in the task's dtypes: the operator timed beside the export."""
        return self.torch(x, dim=-1, dtype=self.y)


def ulp(ref, dtype):
    """One unit in the last place of dtype at |ref|, as kevo's harness computes it (kv_ulp): the spacing above |ref|
    rounded to dtype, or the one just below where that is the largest finite value (the next one up is infinite)."""
    bits = {4: torch.int32, 2: torch.int16}[torch.finfo(dtype).bits // 8]
    a = ref.abs().clamp(max=torch.finfo(dtype).max).to(dtype)
    up = (a.view(bits) + 1).view(dtype)
    below = (a.view(bits) - 1).view(dtype)
    return torch.where(torch.isinf(up), a.double() - below.double(), up.double() - a.double())


def kevo_check(y, ref, task):
    """y against ref as kevo's evaluator holds an output (harness.cu's comparison, CheckCounts): an infinite answer
    only exactly; a finite one within absolute + relative |ref| + 1 ulp of y's type, an infinite output allowed only
    where the answer moved by that bound rounds to infinity in y's type; the relative L2 error, over the answers y's
    type holds finitely, within its bound plus 1.25x the rounded reference's own. Returns the elements off, the
    non-finite outputs, the relative L2 error, its bound and the largest error."""
    sums = kevo_sums(y, ref, task)
    return (sums[0], sums[1], *kevo_l2(sums, task), sums[5])


def kevo_l2(sums, task):
    """The relative L2 error and its bound, from kevo_sums (added up over blocks of rows, where a check goes so)."""
    _, _, err_sq, ref_sq, round_sq, _ = sums
    rel = math.sqrt(err_sq / ref_sq) if ref_sq > 0 else 0.0
    rel_bound = task.tolerance[2] + ROUNDING_ALLOWANCE * (math.sqrt(round_sq / ref_sq) if ref_sq > 0 else 0.0)
    return rel, rel_bound


def kevo_sums(y, ref, task):
    """kevo_check's counts and sums for y against ref: the elements off, the non-finite outputs, the squared error,
    answer and rounding of the answers y's type holds finitely, and the largest error."""
    absolute, relative, _ = task.tolerance
    got = y.double()
    inf_ref = torch.isinf(ref)
    finite_ref = ref.nan_to_num(nan=0.0, posinf=0.0, neginf=0.0)
    bound = absolute + relative * finite_ref.abs() + ulp(finite_ref, task.y)
    may_overflow = torch.isinf((finite_ref.abs() + bound).to(task.y))
    got_nan, got_inf = torch.isnan(got), torch.isinf(got)
    wrong_inf = inf_ref & (got != ref)
    nonfinite = (wrong_inf & (got_nan | got_inf)) | (~inf_ref & (got_nan | (got_inf & ~(
        (torch.signbit(got) == torch.signbit(ref)) & may_overflow))))
    compared = ~inf_ref & ~got_nan & ~got_inf
    err = torch.where(compared, (got - ref).abs(), torch.zeros_like(got))
    violations = (wrong_inf & ~got_nan & ~got_inf) | (err > bound)
    held = ref.to(task.y).double()  # ref as y's type holds it: infinite where ref is, or lies past its largest value
    finite_held = torch.isfinite(held)
    err_sq = (err[finite_held] ** 2).sum().item()
    ref_sq = (ref[finite_held] ** 2).sum().item()
    round_sq = ((held - ref)[finite_held] ** 2).sum().item()
    return (int(violations.sum().item()), int(nonfinite.sum().item()), err_sq, ref_sq, round_sq,
            err.max().item() if err.numel() else 0.0)


def inputs(rows, cols, gen, dtype):
    """kevo's input cases that stress these operators most, in x's dtype: spread values, values where exp overflows
    without the row max, and rows mostly -inf (a log_softmax of -inf, exactly)."""
    normal = torch.randn(rows, cols, device="cuda", generator=gen) * 4
    high = torch.rand(rows, cols, device="cuda", generator=gen) * 500 + 500
    masked = torch.randn(rows, cols, device="cuda", generator=gen) * 4
    mask = torch.rand(rows, cols, device="cuda", generator=gen) < 0.35
    mask[torch.arange(rows, device="cuda"), torch.randint(cols, (rows,), device="cuda", generator=gen)] = False
    masked[mask] = float("-inf")
    return {"normal-4": normal.to(dtype), "uniform-500-1000": high.to(dtype), "masked": masked.to(dtype)}


def check(f, task, rows, cols, gen):
    worst = {"correct": True, "relativeL2": 0.0, "maxAbsError": 0.0, "elementsOff": 0, "nonFinite": 0,
             "maxAbsDiffVsTorch": 0.0}
    for name, x in inputs(rows, cols, gen, task.x).items():
        y = f(x)
        ref = task.reference(x)
        off, nonfinite, rel, rel_bound, max_err = kevo_check(y, ref, task)
        ok = off == 0 and nonfinite == 0 and rel <= rel_bound and y.dtype == task.y
        worst["correct"] &= ok
        worst["relativeL2"] = max(worst["relativeL2"], rel)
        worst["maxAbsError"] = max(worst["maxAbsError"], max_err)
        worst["elementsOff"] += off
        worst["nonFinite"] += nonfinite
        theirs = task.in_torch(x)
        worst["maxAbsDiffVsTorch"] = max(worst["maxAbsDiffVsTorch"], torch.where(
            y == theirs, 0.0, (y.double() - theirs.double()).abs()).nan_to_num(nan=math.inf).max().item())
        if not ok:
            worst.setdefault("failedCases", []).append(name)
        del x, y, ref, theirs
    return worst


def attention_cases(shape, task, gen):
    """The input cases of an attention shape (kevo_bench.Shape): x as inputs() draws it for each of its three cases
    (spread, values where exp overflows without the row max, -inf entries), as rows x keys; with a scale of kevo's,
    and the tensor the shape's mask kind reads (None for the other) drawn as family.attention_inputs draws it and
    pushed to its edges: every fourth batch entry's length 0 (its rows fully masked) and the third's keys; every fourth
    query's mask row masked throughout and a few -inf entries beside the lowest ones."""
    base = family.attention_inputs(shape, task.x, gen)
    del base["x"]
    if base["lengths"] is not None:
        base["lengths"][1::4] = 0
        base["lengths"][2::4] = shape.keys
    if base["mask"] is not None:
        base["mask"][:, 3::4] = torch.finfo(task.x).min
        base["mask"].view(-1)[::97] = float("-inf")
    for i, (name, x) in enumerate(inputs(shape.rows, shape.cols, gen, task.x).items()):
        yield name, {**base, "x": x, "scale": SCALES[(i + shape.mask_kind) % len(SCALES)]}


def call_attention(f, shape, case):
    """The package's op as a user calls it on a case: x as [batch, heads, queries, keys]; y as rows x keys."""
    x = case["x"].view(shape.batch, shape.heads, shape.queries, shape.keys)
    return f(x, case["scale"], shape.mask, lengths=case["lengths"], mask=case["mask"]).view(shape.rows, shape.cols)


def check_attention_case(y, shape, case, task):
    """y against the float64 reference (family.masked_reference), a block of rows at a time, with kevo's tolerance;
    and exactly 0 where kevo holds it so: a masked key, an entry of x that is -inf, a row with no key left. Returns
    what check() records of a case, and the entries that are not 0 where they must be."""
    block = max(1, CHECK_ELEMENTS // shape.cols)
    sums, exact_off = [0, 0, 0.0, 0.0, 0.0, 0.0], 0
    for start in range(0, shape.rows, block):
        rows = slice(start, min(shape.rows, start + block))
        ref, masked, empty = family.masked_reference(shape, case, rows)
        part = kevo_sums(y[rows], ref, task)
        sums = [a + b for a, b in zip(sums[:5], part[:5])] + [max(sums[5], part[5])]
        exact = masked | torch.isneginf(case["x"][rows]) | empty.view(-1, 1)
        exact_off += int((exact & (y[rows] != 0)).sum().item())
        del ref, masked, empty, exact
    rel, rel_bound = kevo_l2(sums, task)
    return sums[0], sums[1], rel, rel_bound, sums[5], exact_off


def check_attention(f, task, shape, gen):
    """check() for an attention shape: its three cases through the package's op, each against the float64
    reference, masked entries and fully masked rows exactly 0."""
    worst = {"correct": True, "relativeL2": 0.0, "maxAbsError": 0.0, "elementsOff": 0, "nonFinite": 0,
             "notExactlyZero": 0}
    for name, case in attention_cases(shape, task, gen):
        y = call_attention(f, shape, case)
        off, nonfinite, rel, rel_bound, max_err, exact_off = check_attention_case(y, shape, case, task)
        ok = off == 0 and nonfinite == 0 and exact_off == 0 and rel <= rel_bound and y.dtype == task.y
        worst["correct"] &= ok
        worst["relativeL2"] = max(worst["relativeL2"], rel)
        worst["maxAbsError"] = max(worst["maxAbsError"], max_err)
        worst["elementsOff"] += off
        worst["nonFinite"] += nonfinite
        worst["notExactlyZero"] += exact_off
        if not ok:
            worst.setdefault("failedCases", []).append(name)
        del case, y
    return worst


def random_attention_shapes(rng):
    """RANDOM_ATTENTION attention layouts, log-uniform: batch 1..8, heads 1..32, queries 1..2048, keys 1..32768, at
    most MAX_ELEMENTS elements (redrawn above), in the mask kinds in turn."""
    shapes = []
    while len(shapes) < RANDOM_ATTENTION:
        u = torch.rand(4, generator=rng).tolist()
        b, h, q, k = (max(1, round(math.exp(v * math.log(top)))) for v, top in zip(u, (8, 32, 2048, 32768)))
        if b * h * q * k <= MAX_ELEMENTS:
            kind = kevo_bench.MASK_KINDS[len(shapes) % len(kevo_bench.MASK_KINDS)]
            shapes.append(kevo_bench.Shape(b * h * q, k, b, h, kind))
    return shapes


# Each misuse, as a call of f (the package's op) on x (a 4x8 CUDA tensor of the package's x dtype), and a word its
# error must hold. XDTYPE: x's dtype as Python writes it, which the dtype error names.
ERROR_CASES = {
    "float64": ("f(x.double())", "XDTYPE"),
    "cpu": ("f(x.cpu())", "CUDA"),
    "non-contiguous": ("f(x.t())", "contiguous"),
    "dim=0": ("f(x, 0)", "last dimension"),
    "misaligned view": ("f(torch.randn(40, device='cuda').to(x.dtype)[1:33].view(4, 8))", "aligned"),
}
ROWWISE_SETUP = 'x = torch.randn(4, 8, device="cuda").to(dtype)'

# masked_softmax's misuses, on x of [batch 2, heads 3, queries 4, keys 8], lengths (int32, [2]) and mask ([2, 4, 8]),
# all CUDA tensors of the package's dtypes. A third element names the error expected where it is not a RuntimeError
# (pybind's own TypeError for an argument of the wrong Python type).
ATTENTION_SETUP = """
x = torch.randn(2, 3, 4, 8, device="cuda").to(dtype)
lengths = torch.tensor([3, 0], dtype=torch.int32, device="cuda")
mask = torch.zeros(2, 4, 8, device="cuda").to(dtype)
"""
ATTENTION_ERROR_CASES = {
    "float64": ("f(x.double(), 0.125)", "XDTYPE"),
    "cpu": ("f(x.cpu(), 0.125)", "must be a CUDA tensor"),
    "non-contiguous": ("f(x.transpose(2, 3), 0.125)", "contiguous"),
    "dim=0": ("f(x, 0.125, dim=0)", "last dimension"),
    "dim=2": ("f(x, 0.125, dim=2)", "last dimension"),
    "misaligned view": ("f(torch.randn(200, device='cuda').to(x.dtype)[1:193].view(2, 3, 4, 8), 0.125)", "aligned"),
    "3 dimensions": ("f(x[0], 0.125)", "4 dimensions"),
    "5 dimensions": ("f(x.view(1, 2, 3, 4, 8), 0.125)", "4 dimensions"),
    "unknown mask kind": ("f(x, 0.125, 'diagonal')", "not a mask kind"),
    "padding without lengths": ("f(x, 0.125, 'padding')", "reads lengths"),
    "additive without mask": ("f(x, 0.125, 'additive')", "reads mask"),
    "lengths under causal": ("f(x, 0.125, 'causal', lengths=lengths)", "lengths=None"),
    "mask under none": ("f(x, 0.125, mask=mask)", "mask=None"),
    "mask under padding": ("f(x, 0.125, 'padding', lengths=lengths, mask=mask)", "mask=None"),
    "lengths int64": ("f(x, 0.125, 'padding', lengths=lengths.long())", "torch.int32"),
    "lengths on cpu": ("f(x, 0.125, 'padding', lengths=lengths.cpu())", "must be a CUDA tensor"),
    "lengths of another batch": ("f(x, 0.125, 'padding', lengths=lengths[:1])", "[batch]"),
    "mask of another shape": ("f(x, 0.125, 'additive', mask=mask[:, :2])", "[batch, queries, keys]"),
    "mask per head": ("f(x, 0.125, 'additive', mask=torch.zeros(2, 3, 4, 8, device='cuda').to(x.dtype))",
                      "[batch, queries, keys]"),
    "mask float64": ("f(x, 0.125, 'additive', mask=mask.double())", "XDTYPE"),
    "mask on cpu": ("f(x, 0.125, 'additive', mask=mask.cpu())", "must be a CUDA tensor"),
    "mask non-contiguous": ("f(x, 0.125, 'additive', mask=torch.zeros(2, 8, 4, device='cuda').to(x.dtype)"
                            ".transpose(1, 2))", "contiguous"),
    "mask misaligned": ("f(x, 0.125, 'additive', mask=torch.zeros(72, device='cuda').to(x.dtype)[1:65]"
                        ".view(2, 4, 8))", "aligned"),
    "scale nan": ("f(x, float('nan'))", "scale"),
    "scale past float32": ("f(x, 1e39)", "scale"),
    "mask_kind not a string": ("f(x, 0.125, 1)", "incompatible function arguments", "TypeError"),
}

_ERROR_CHILD = """
import builtins, faulthandler, importlib, json, sys
import torch
faulthandler.enable()
sys.path.insert(0, sys.argv[1])
ext = importlib.import_module(sys.argv[2])
f = getattr(ext, sys.argv[4])
dtype = getattr(torch, sys.argv[5])
exec(sys.argv[6])
try:
    eval(sys.argv[3])
    print(json.dumps({"raised": False}))
except getattr(builtins, sys.argv[7]) as e:
    print(json.dumps({"raised": True, "message": str(e).splitlines()[0]}))
"""


def errors(ext, task):
    """Each misuse must raise a RuntimeError that says what is wrong. Each runs in a process of its own, so that a
    misuse that crashes the extension (a segfault, which the H100 run once met) is reported as that case failing,
    with the child's own trace, instead of taking the whole check down. Then what must be accepted: a 3-d input (a
    row-wise op), or masked_softmax's Hugging Face mask layout, defaults and fully masked rows (accepted())."""
    folder = os.path.dirname(ext.__file__)
    name = os.path.basename(ext.__file__).split(".")[0]
    xdtype = str(task.x).replace("torch.", "")
    out = {}
    cases, setup = (ATTENTION_ERROR_CASES, ATTENTION_SETUP) if task.attention else (ERROR_CASES, ROWWISE_SETUP)
    for case, (call, word, *raised) in cases.items():
        word = word.replace("XDTYPE", str(task.x))
        r = subprocess.run([sys.executable, "-c", _ERROR_CHILD, folder, name, call, task.op, xdtype, setup,
                            raised[0] if raised else "RuntimeError"], capture_output=True, text=True, timeout=120)
        line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        if r.returncode != 0 or not line.startswith("{"):
            out[case] = {"ok": False, "message": f"child exit {r.returncode}: " + (r.stderr.strip()[-600:])}
            continue
        got = json.loads(line)
        out[case] = {"ok": got["raised"] and word in got["message"],
                     "message": got.get("message", "no error raised")}
    if task.attention:
        out.update(accepted(getattr(ext, task.op), task))
        return out
    x = (torch.randn(4, 8, device="cuda") * 4).to(task.x)
    off, nonfinite, rel, rel_bound, _ = kevo_check(getattr(ext, task.op)(x.view(2, 2, 8)).view(4, 8),
                                                   task.reference(x), task)
    out["3-d input"] = {"ok": off == 0 and nonfinite == 0 and rel <= rel_bound}
    return out


def accepted(f, task):
    """What masked_softmax must accept, each held to the float64 reference: the additive mask as [batch, 1, queries,
    keys] (Hugging Face's layout), giving what [batch, queries, keys] gives; the defaults (mask_kind "none", no
    tensors, dim=-1) and dim=3 spelled out; a batch entry of length 0, its rows all 0."""
    shape = kevo_bench.Shape(2 * 3 * 4, 8, 2, 3, "additive")
    x = (torch.randn(2, 3, 4, 8, device="cuda") * 4).to(task.x)
    mask = (torch.randn(2, 4, 8, device="cuda") * 2).to(task.x)
    mask[0, 1] = torch.finfo(task.x).min
    mask[1, 2, ::3] = float("-inf")
    lengths = torch.tensor([3, 0], dtype=torch.int32, device="cuda")

    def held(kind, y, **given):
        case = {"x": x.view(shape.rows, shape.cols), "scale": SCALES[0], "lengths": None, "mask": None, **given}
        off, nonfinite, rel, rel_bound, _, exact_off = check_attention_case(
            y.view(shape.rows, shape.cols), shape.with_mask(kind), case, task)
        return off == 0 and nonfinite == 0 and exact_off == 0 and rel <= rel_bound

    hf = f(x, SCALES[0], "additive", mask=mask.view(2, 1, 4, 8))
    plain = f(x, SCALES[0])
    spelled = f(x, scale=SCALES[0], mask_kind="none", lengths=None, mask=None, dim=3)
    padded = f(x, SCALES[0], "padding", lengths=lengths)
    return {
        "mask [batch, 1, queries, keys]": {"ok": bool(torch.equal(hf, f(x, SCALES[0], "additive", mask=mask)))
                                           and held("additive", hf, mask=mask)},
        "defaults": {"ok": bool(torch.equal(plain, spelled)) and held("none", plain)},
        "a length of 0": {"ok": bool((padded[1] == 0).all()) and held("padding", padded, lengths=lengths)},
    }


def time_shape(variants, rounds, flush, sink):
    times = {n: [] for n in variants}
    for _ in range(WARMUP):
        for f in variants.values():
            f()
    torch.cuda.synchronize()
    names = list(variants)
    for r in range(rounds):
        for i in range(len(names)):
            n = names[(r + i) % len(names)]
            torch.sum(flush, dim=0, out=sink)
            torch.cuda._sleep(200_000)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            variants[n]()
            end.record()
            times[n].append((start, end))
    torch.cuda.synchronize()
    return {n: statistics.median(s.elapsed_time(e) * 1000 for s, e in pairs) for n, pairs in times.items()}


def rowwise_timing(f, task, nvrtc_kernel, stream, dims, gen):
    """What a row-wise shape times: the export as a user calls it, the same file's plan through NVRTC, and torch's
    function, on x spread as kevo's normal cases draw it. The tensors live as long as the calls."""
    rows, cols = dims
    x = (torch.randn(rows, cols, device="cuda", generator=gen) * 4).to(task.x)
    y = torch.empty(rows, cols, device="cuda", dtype=task.y)
    plan, ws = nvrtc_kernel.prepare(rows, cols)
    run = nvrtc_kernel.bind(plan, ws, x, y, stream.cuda_stream)
    run.tensors = (x, y, ws)
    return (lambda: f(x)), run, (lambda: task.in_torch(x))


def attention_timing(f, task, nvrtc_kernel, stream, shape, gen):
    """What an attention shape times, on inputs as family.py times them (family.attention_inputs: x spread, a scale of
    1/sqrt(128), lengths in [keys/2, keys], a mask with 30% of its keys masked): the export as a user calls it, the same
    file's plan through NVRTC (the plan sees batch, heads, queries and mask_kind) and the torch composition users
    write (family.torch_masked_softmax: x * scale + bias, its bias made before timing, then torch.softmax)."""
    case = family.attention_inputs(shape, task.x, gen)
    x4 = case["x"].view(shape.batch, shape.heads, shape.queries, shape.keys)
    y = torch.empty(shape.rows, shape.cols, device="cuda", dtype=task.y)
    variables = shape.variables()
    plan, ws = nvrtc_kernel.prepare(shape.rows, shape.cols, variables)
    run = nvrtc_kernel.bind_tensors(plan, {**case, "y": y, "ws": ws}, shape.rows, shape.cols, stream.cuda_stream,
                                    variables)
    run.tensors = (case, y, ws)
    scale, kind, lengths, mask = case["scale"], shape.mask, case["lengths"], case["mask"]
    return (lambda: f(x4, scale, kind, lengths=lengths, mask=mask)), run, family.torch_masked_softmax(shape, case,
                                                                                                      task.y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", required=True)
    ap.add_argument("--kevo-json", required=True)
    ap.add_argument("--kernel", required=True, help="the kernel file the package was exported from")
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default=" ".join(sys.argv))
    args = ap.parse_args()
    faulthandler.enable()
    import triton
    import triton.testing
    family.load_gpu_modules()

    props = torch.cuda.get_device_properties(0)
    sms, arch = props.multi_processor_count, f"sm_{props.major}{props.minor}"
    provenance = json.load(open(os.path.join(args.package, "kevo-export.json")))
    task = Task(provenance)
    ext, method, build_s, attempts = build(args.package, task.module)
    f = getattr(ext, task.op)
    print(f"{task.module}.{task.op} ({task.dtype}) built with {method} in {build_s:.1f} s; checked against "
          f"{task.torch_name} in float64", flush=True)
    kevo_eval = json.load(open(args.kevo_json))
    kevo_file = kevo_eval["results"][0]
    kevo_us = {s["shape"]: s["candidate"]["medianMs"] * 1000 for s in kevo_file["shapes"] if s.get("candidate")}
    # The driver-API loader works in the context current on this thread: torch's, which exists only once torch
    # has put something on the device.
    torch.zeros(1, device="cuda")
    cuda = compare_torch.Cuda()
    nvrtc_kernel = compare_torch.KevoKernel(cuda, args.kernel, arch, sms, task.dtype, task.op)
    stream = torch.cuda.current_stream()
    flush = torch.empty(2 * props.L2_cache_size // 4, dtype=torch.float32, device="cuda").fill_(1)
    sink = torch.empty((), device="cuda")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(18)
    rng = torch.Generator().manual_seed(2026)
    if task.attention:
        suite, randoms = kevo_bench.suite_cases(ATTENTION_SUITE), random_attention_shapes(rng)
    else:
        suite = compare_torch.suite_shapes("evaluator/suites/standard.yaml")
        randoms = []
        while len(randoms) < 20:
            u = torch.rand(2, generator=rng).tolist()
            rows = max(1, min(65536, round(math.exp(u[0] * math.log(65536)))))
            cols = max(1, min(10 ** 6, round(math.exp(u[1] * math.log(10 ** 6)))))
            if rows * cols <= MAX_ELEMENTS:
                randoms.append((rows, cols))
    width = 24 if task.attention else 12  # BATCHxHEADSxQUERIESxKEYS:MASK, or ROWSxCOLS
    rows_out = []
    # The misuse checks first: a crash there (the H100 run once died of a segfault after the last shape) says so,
    # with a trace from faulthandler, before the timings are spent.
    errs = errors(ext, task)
    for k, v in errs.items():
        print(f"error check {k}: {'ok' if v['ok'] else 'NO'}  {v.get('message', '')}", flush=True)
    for kind, shapes in (("suite", suite), ("random", randoms)):
        for dims in shapes:
            shape = str(dims) if task.attention else f"{dims[0]}x{dims[1]}"
            try:
                checked = check_attention(f, task, dims, gen) if task.attention else check(f, task, *dims, gen)
                row = {"shape": shape, "kind": kind, **checked}
            except RuntimeError as e:
                # The package runs each plan only within what kevo judged it on, and says so; a refusal is no answer.
                row = {"shape": shape, "kind": kind, "refused": str(e).splitlines()[0]}
                rows_out.append(row)
                print(f"{shape:>{width}} {kind:6} refused: {row['refused']}", flush=True)
                torch.cuda.empty_cache()
                continue
            export, run, theirs = (attention_timing if task.attention else rowwise_timing)(
                f, task, nvrtc_kernel, stream, dims, gen)
            variants = {"export": export, "kevo plan via NVRTC": run}
            if kind == "suite":
                variants[task.torch_name] = theirs
            med = time_shape(variants, ROUNDS if kind == "suite" else RANDOM_ROUNDS, flush, sink)
            row["exportUs"] = med["export"]
            row["kevoPlanNvrtcUs"] = med["kevo plan via NVRTC"]
            row["ratioExportOverNvrtc"] = med["export"] / med["kevo plan via NVRTC"]
            if task.torch_name in med:
                row["torchUs"] = med[task.torch_name]
            if shape in kevo_us:
                row["kevoEvalUs"] = kevo_us[shape]
                row["ratioExportOverKevoEval"] = med["export"] / kevo_us[shape]
                row["within10pct"] = abs(row["ratioExportOverKevoEval"] - 1) <= 0.10
                row["doBenchExportUs"] = triton.testing.do_bench(export, warmup=25, rep=100) * 1000
            rows_out.append(row)
            print(f"{shape:>{width}} {kind:6} {'ok' if row['correct'] else 'WRONG':5} export {row['exportUs']:9.1f} us"
                  + (f"  kevo eval {row['kevoEvalUs']:9.1f} us  ratio {row['ratioExportOverKevoEval']:.3f}"
                     if "kevoEvalUs" in row else f"  nvrtc {row['kevoPlanNvrtcUs']:9.1f} us"), flush=True)
            del export, run, theirs, variants
            torch.cuda.empty_cache()
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    suite_rows = [r for r in rows_out if r["kind"] == "suite" and "ratioExportOverKevoEval" in r]
    geo = math.exp(sum(math.log(r["ratioExportOverKevoEval"]) for r in suite_rows) / max(1, len(suite_rows)))
    checked_on = (f"every shape of {ATTENTION_SUITE} in every mask kind and {RANDOM_ATTENTION} random attention "
                  "layouts, masked keys and fully masked rows exactly 0" if task.attention
                  else "the standard suite and 20 random shapes")
    record = {
        "what": f"kevo export --to torch of {os.path.basename(args.kernel)} ({task.op}, {task.dtype}): correctness "
                f"({task.torch_name} in float64, kevo's tolerance for {task.op}) on {checked_on}, error messages, and "
                "time against kevo eval's for the same file in the same run",
        "op": task.op, "dtype": task.dtype, "torchFunction": task.torch_name,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": args.command, "device": torch.cuda.get_device_name(0), "nvidiaSmi": smi,
        "driver": smi.split(",")[-1].strip() if smi else None, "kevoVersion": kevo_eval.get("kevoVersion"),
        "kevoEvalDevice": kevo_eval.get("device"), "torch": torch.__version__, "triton": triton.__version__,
        "build": {"method": method, "seconds": build_s, "attempts": attempts},
        "provenance": provenance,
        "tolerance": {"absolute": task.tolerance[0], "relative": task.tolerance[1], "relativeL2": task.tolerance[2],
                      "perElementPlus": "1 ulp of y's type", "relativeL2Plus": f"{ROUNDING_ALLOWANCE}x the rounded "
                      "reference's", "infinite": "exactly"},
        "method": f"{WARMUP} warm-up rounds, {ROUNDS} interleaved rounds ({RANDOM_ROUNDS} for random shapes), L2 flushed "
                  "(2x L2 read) before each launch, GPU busy while the host enqueues (torch.cuda._sleep), CUDA events, "
                  f"median; export = {task.module}.{task.op}("
                  + ("x, scale, mask_kind, lengths=, mask=" if task.attention else "x")
                  + ") as a user calls it (allocates y and the workspace from torch's caching allocator); "
                  "doBenchExportUs = triton.testing.do_bench",
        "randomShapes": {"batch": "1..8", "heads": "1..32", "queries": "1..2048", "keys": "1..32768",
                         "masks": "each kind in turn", "draw": f"log-uniform, redrawn above {MAX_ELEMENTS} elements",
                         "seed": 2026} if task.attention
        else {"rows": "1..65536", "cols": "1..10^6", "draw": "log-uniform, redrawn above "
              f"{MAX_ELEMENTS} elements", "seed": 2026},
        "errors": errs,
        "summary": {"allCorrect": all(r.get("correct", True) for r in rows_out), "shapes": len(rows_out),
                    "refused": [r["shape"] for r in rows_out if "refused" in r],
                    "suiteWithin10pct": all(r["within10pct"] for r in suite_rows),
                    "suiteGeomeanRatioExportOverKevoEval": geo, "errorsOk": all(v["ok"] for v in errs.values())},
        "shapes": rows_out,
    }
    json.dump(record, open(args.out, "w"), indent=2)
    print()
    print(f"{'shape':>{width}} {'kind':6} {'check':5} {'export us':>10} {'kevo eval us':>12} {'ratio':>6} "
          f"{'nvrtc us':>9} {'torch us':>9}  (torch: {task.torch_name})")
    for r in rows_out:
        if "refused" in r:
            print(f"{r['shape']:>{width}} {r['kind']:6} refused ({r['refused']})")
            continue
        print(f"{r['shape']:>{width}} {r['kind']:6} {'ok' if r['correct'] else 'WRONG':5} {r['exportUs']:10.1f} "
              f"{r.get('kevoEvalUs', float('nan')):12.1f} {r.get('ratioExportOverKevoEval', float('nan')):6.3f} "
              f"{r['kevoPlanNvrtcUs']:9.1f} {r.get('torchUs', float('nan')):9.1f}")
    print(f"errors raised as expected: {record['summary']['errorsOk']} "
          + ", ".join(f"{k}={'ok' if v['ok'] else 'NO'}" for k, v in errs.items()))
    print(f"all correct: {record['summary']['allCorrect']}; suite within 10% of kevo eval: "
          f"{record['summary']['suiteWithin10pct']} (geometric mean ratio {geo:.3f})")
    print(f"refused (a plan kevo did not judge that far): {record['summary']['refused']}")
    suite_refused = [r for r in rows_out if r["kind"] == "suite" and "refused" in r]
    return 0 if record["summary"]["allCorrect"] and record["summary"]["errorsOk"] and not suite_refused else 1


if __name__ == "__main__":
    sys.exit(main())
