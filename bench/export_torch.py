#!/usr/bin/env python3
"""kevo export's torch package of the recorded champion on the GPU: builds it with this Python's torch, checks it
against a float64 softmax with kevo's tolerance (per element 1e-6 + 1e-4 |ref|, relative L2 1e-4) on the standard
suite and 20 random shapes (rows 1..65536, cols 1..10^6, log-uniform, at most MAX_ELEMENTS elements so the float64
reference fits in time), on three input cases each; checks its errors for other dtypes, devices, layouts and dims;
then times it beside the same file launched from kevo's own plan through NVRTC (bench/compare_torch.py's KevoKernel)
and torch.softmax, with compare_torch.py's method (one process, interleaved rounds, L2 flushed before each launch,
the GPU kept busy while the host enqueues, CUDA events, medians) and with triton.testing.do_bench, and compares each
shape's time with what `kevo eval --json` measured for the same file in the same run.
Usage: python bench/export_torch.py --package DIR --kevo-json EVAL.json --out OUT.json [--command TEXT]
"""
import argparse, datetime, faulthandler, importlib, json, math, os, statistics, subprocess, sys, time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_torch  # noqa: E402  (kevo's plan launched through NVRTC, and the timing method)

TOL_ABS, TOL_REL, TOL_L2 = 1e-6, 1e-4, 1e-4
MAX_ELEMENTS = 1 << 25
ROUNDS, WARMUP = 60, 10
RANDOM_ROUNDS = 20


def build(package):
    """The extension, built the way the package's README says: load() where ninja exists, else setup.py, else nvcc
    and the host compiler by hand with torch's include and library paths."""
    from torch.utils import cpp_extension
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % torch.cuda.get_device_capability())
    start = time.time()
    attempts = []
    if cpp_extension.is_ninja_available():
        try:
            mod = cpp_extension.load(name="kevo_softmax", sources=[os.path.join(package, "kevo_softmax_torch.cpp"),
                                                                    os.path.join(package, "kevo_softmax.cu")],
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
        return importlib.import_module("kevo_softmax"), "setup.py build_ext --inplace", time.time() - start, attempts
    attempts.append({"method": "setup.py", "error": (r.stdout + r.stderr)[-2000:]})
    mod = _by_hand(package)
    return mod, "nvcc + c++ by hand with torch's paths", time.time() - start, attempts


def _fresh(path):
    os.makedirs(path, exist_ok=True)
    return path


def _by_hand(package):
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
                    os.path.join(package, "kevo_softmax.cu"), "-o", os.path.join(out, "k.o")], check=True)
    subprocess.run(["c++", "-O3", "-std=c++20", "-fPIC", abi, "-DTORCH_EXTENSION_NAME=kevo_softmax",
                    "-DTORCH_API_INCLUDE_EXTENSION_H", *inc, "-c", os.path.join(package, "kevo_softmax_torch.cpp"),
                    "-o", os.path.join(out, "b.o")], check=True)
    libs = [f"-L{p}" for p in libraries]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    # nvcc's own runtime, found at import through an rpath: torch may carry a runtime of another CUDA version.
    cudart = os.path.realpath(os.path.join(os.path.dirname(nvcc), "..", "lib64"))
    rpaths = [f"-Wl,-rpath,{p[2:]}" for p in libs] + [f"-Wl,-rpath,{cudart}"]
    subprocess.run(["c++", "-shared", "-o", os.path.join(out, "kevo_softmax" + suffix), os.path.join(out, "b.o"),
                    os.path.join(out, "k.o"), *libs, "-lc10", "-ltorch", "-ltorch_cpu", "-ltorch_python",
                    "-lc10_cuda", "-ltorch_cuda", f"-L{cudart}", "-lcudart", *rpaths], check=True)
    sys.path.insert(0, out)
    return importlib.import_module("kevo_softmax")


def inputs(rows, cols, gen):
    """kevo's input cases that stress a softmax most: spread values, values where exp overflows without the row max,
    and rows mostly -inf."""
    normal = torch.randn(rows, cols, device="cuda", generator=gen) * 4
    high = torch.rand(rows, cols, device="cuda", generator=gen) * 500 + 500
    masked = torch.randn(rows, cols, device="cuda", generator=gen) * 4
    mask = torch.rand(rows, cols, device="cuda", generator=gen) < 0.35
    mask[torch.arange(rows, device="cuda"), torch.randint(cols, (rows,), device="cuda", generator=gen)] = False
    masked[mask] = float("-inf")
    return {"normal-4": normal, "uniform-500-1000": high, "masked": masked}


def check(ext, rows, cols, gen):
    worst = {"correct": True, "relativeL2": 0.0, "maxAbsError": 0.0, "elementsOff": 0, "maxAbsDiffVsTorchFloat32": 0.0}
    for name, x in inputs(rows, cols, gen).items():
        y = ext.softmax(x)
        ref = torch.softmax(x.double(), dim=-1)
        d = (y.double() - ref).abs()
        off = int((~(d <= TOL_ABS + TOL_REL * ref.abs())).sum().item())
        rel = (d.norm() / ref.norm()).item()
        ok = off == 0 and rel <= TOL_L2 and bool(torch.isfinite(y).all())
        worst["correct"] &= ok
        worst["relativeL2"] = max(worst["relativeL2"], rel)
        worst["maxAbsError"] = max(worst["maxAbsError"], d.max().item())
        worst["elementsOff"] += off
        worst["maxAbsDiffVsTorchFloat32"] = max(worst["maxAbsDiffVsTorchFloat32"],
                                                (y - torch.softmax(x, dim=-1)).abs().max().item())
        if not ok:
            worst.setdefault("failedCases", []).append(name)
        del x, y, ref, d
    return worst


ERROR_CASES = {
    "float64": ("ext.softmax(x.double())", "float32"),
    "cpu": ("ext.softmax(x.cpu())", "CUDA"),
    "non-contiguous": ("ext.softmax(x.t())", "contiguous"),
    "dim=0": ("ext.softmax(x, 0)", "last dimension"),
    "misaligned view": ("ext.softmax(torch.randn(40, device='cuda')[1:33].view(4, 8))", "aligned"),
}

_ERROR_CHILD = """
import faulthandler, importlib, json, sys
import torch
faulthandler.enable()
sys.path.insert(0, sys.argv[1])
ext = importlib.import_module(sys.argv[2])
x = torch.randn(4, 8, device="cuda")
try:
    eval(sys.argv[3])
    print(json.dumps({"raised": False}))
except RuntimeError as e:
    print(json.dumps({"raised": True, "message": str(e).splitlines()[0]}))
"""


def errors(ext):
    """Each misuse must raise a RuntimeError that says what is wrong. Each runs in a process of its own, so that a
    misuse that crashes the extension (a segfault, which the H100 run once met) is reported as that case failing,
    with the child's own trace, instead of taking the whole check down."""
    folder = os.path.dirname(ext.__file__)
    name = os.path.basename(ext.__file__).split(".")[0]
    out = {}
    for case, (call, word) in ERROR_CASES.items():
        r = subprocess.run([sys.executable, "-c", _ERROR_CHILD, folder, name, call], capture_output=True, text=True,
                           timeout=120)
        line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        if r.returncode != 0 or not line.startswith("{"):
            out[case] = {"ok": False, "message": f"child exit {r.returncode}: " + (r.stderr.strip()[-600:])}
            continue
        got = json.loads(line)
        out[case] = {"ok": got["raised"] and word in got["message"],
                     "message": got.get("message", "no error raised")}
    x = torch.randn(4, 8, device="cuda")
    ok3d = ext.softmax(x.view(2, 2, 8))
    out["3-d input"] = {"ok": bool(torch.allclose(ok3d.view(4, 8), torch.softmax(x, -1), atol=1e-6))}
    return out


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", required=True)
    ap.add_argument("--kevo-json", required=True)
    ap.add_argument("--kernel", default="bench/results/champion-default-h100.cu")
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", default=" ".join(sys.argv))
    args = ap.parse_args()
    faulthandler.enable()
    import triton
    import triton.testing

    props = torch.cuda.get_device_properties(0)
    sms, arch = props.multi_processor_count, f"sm_{props.major}{props.minor}"
    ext, method, build_s, attempts = build(args.package)
    print(f"built with {method} in {build_s:.1f} s", flush=True)
    kevo_eval = json.load(open(args.kevo_json))
    kevo_file = kevo_eval["results"][0]
    kevo_us = {s["shape"]: s["candidate"]["medianMs"] * 1000 for s in kevo_file["shapes"] if s.get("candidate")}
    # The driver-API loader works in the context current on this thread: torch's, which exists only once torch
    # has put something on the device.
    torch.zeros(1, device="cuda")
    cuda = compare_torch.Cuda()
    nvrtc_kernel = compare_torch.KevoKernel(cuda, args.kernel, arch, sms)
    stream = torch.cuda.current_stream()
    flush = torch.empty(2 * props.L2_cache_size // 4, dtype=torch.float32, device="cuda").fill_(1)
    sink = torch.empty((), device="cuda")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(18)
    rng = torch.Generator().manual_seed(2026)
    suite = compare_torch.suite_shapes("evaluator/suites/standard.yaml")
    randoms = []
    while len(randoms) < 20:
        u = torch.rand(2, generator=rng).tolist()
        rows = max(1, min(65536, round(math.exp(u[0] * math.log(65536)))))
        cols = max(1, min(10 ** 6, round(math.exp(u[1] * math.log(10 ** 6)))))
        if rows * cols <= MAX_ELEMENTS:
            randoms.append((rows, cols))
    rows_out = []
    # The misuse checks first: a crash there (the H100 run once died of a segfault after the last shape) says so,
    # with a trace from faulthandler, before the timings are spent.
    errs = errors(ext)
    for k, v in errs.items():
        print(f"error check {k}: {'ok' if v['ok'] else 'NO'}  {v.get('message', '')}", flush=True)
    for kind, shapes in (("suite", suite), ("random", randoms)):
        for rows, cols in shapes:
            shape = f"{rows}x{cols}"
            try:
                row = {"shape": shape, "kind": kind, **check(ext, rows, cols, gen)}
            except RuntimeError as e:
                # The package runs each plan only within what kevo judged it on, and says so; a refusal is no answer.
                row = {"shape": shape, "kind": kind, "refused": str(e).splitlines()[0]}
                rows_out.append(row)
                print(f"{shape:>12} {kind:6} refused: {row['refused']}", flush=True)
                torch.cuda.empty_cache()
                continue
            x = torch.randn(rows, cols, device="cuda", generator=gen) * 4
            y = torch.empty_like(x)
            plan, ws = nvrtc_kernel.prepare(rows, cols)
            run = nvrtc_kernel.bind(plan, ws, x, y, stream.cuda_stream)
            variants = {"export": lambda: ext.softmax(x), "kevo plan via NVRTC": run}
            if kind == "suite":
                variants["torch.softmax"] = lambda: torch.softmax(x, dim=-1)
            med = time_shape(variants, ROUNDS if kind == "suite" else RANDOM_ROUNDS, flush, sink)
            row["exportUs"] = med["export"]
            row["kevoPlanNvrtcUs"] = med["kevo plan via NVRTC"]
            row["ratioExportOverNvrtc"] = med["export"] / med["kevo plan via NVRTC"]
            if "torch.softmax" in med:
                row["torchSoftmaxUs"] = med["torch.softmax"]
            if shape in kevo_us:
                row["kevoEvalUs"] = kevo_us[shape]
                row["ratioExportOverKevoEval"] = med["export"] / kevo_us[shape]
                row["within10pct"] = abs(row["ratioExportOverKevoEval"] - 1) <= 0.10
                row["doBenchExportUs"] = triton.testing.do_bench(lambda: ext.softmax(x), warmup=25, rep=100) * 1000
            rows_out.append(row)
            print(f"{shape:>12} {kind:6} {'ok' if row['correct'] else 'WRONG':5} export {row['exportUs']:9.1f} us"
                  + (f"  kevo eval {row['kevoEvalUs']:9.1f} us  ratio {row['ratioExportOverKevoEval']:.3f}"
                     if "kevoEvalUs" in row else f"  nvrtc {row['kevoPlanNvrtcUs']:9.1f} us"), flush=True)
            del x, y, ws
            torch.cuda.empty_cache()
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    suite_rows = [r for r in rows_out if r["kind"] == "suite" and "ratioExportOverKevoEval" in r]
    geo = math.exp(sum(math.log(r["ratioExportOverKevoEval"]) for r in suite_rows) / max(1, len(suite_rows)))
    record = {
        "what": "kevo export --to torch of the recorded champion: correctness (float64 reference, kevo's tolerance) on "
                "the standard suite and 20 random shapes, error messages, and time against kevo eval's for the same "
                "file in the same run",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": args.command, "device": torch.cuda.get_device_name(0), "nvidiaSmi": smi,
        "driver": smi.split(",")[-1].strip() if smi else None, "kevoVersion": kevo_eval.get("kevoVersion"),
        "kevoEvalDevice": kevo_eval.get("device"), "torch": torch.__version__, "triton": triton.__version__,
        "build": {"method": method, "seconds": build_s, "attempts": attempts},
        "provenance": json.load(open(os.path.join(args.package, "kevo-export.json"))),
        "tolerance": {"absolute": TOL_ABS, "relative": TOL_REL, "relativeL2": TOL_L2},
        "method": f"{WARMUP} warm-up rounds, {ROUNDS} interleaved rounds ({RANDOM_ROUNDS} for random shapes), L2 flushed "
                  "(2x L2 read) before each launch, GPU busy while the host enqueues (torch.cuda._sleep), CUDA events, "
                  "median; export = kevo_softmax.softmax(x) as a user calls it (allocates y and the workspace from "
                  "torch's caching allocator); doBenchExportUs = triton.testing.do_bench",
        "randomShapes": {"rows": "1..65536", "cols": "1..10^6", "draw": "log-uniform, redrawn above "
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
    print(f"{'shape':>12} {'kind':6} {'check':5} {'export us':>10} {'kevo eval us':>12} {'ratio':>6} {'nvrtc us':>9} "
          f"{'torch us':>9}")
    for r in rows_out:
        if "refused" in r:
            print(f"{r['shape']:>12} {r['kind']:6} refused ({r['refused']})")
            continue
        print(f"{r['shape']:>12} {r['kind']:6} {'ok' if r['correct'] else 'WRONG':5} {r['exportUs']:10.1f} "
              f"{r.get('kevoEvalUs', float('nan')):12.1f} {r.get('ratioExportOverKevoEval', float('nan')):6.3f} "
              f"{r['kevoPlanNvrtcUs']:9.1f} {r.get('torchSoftmaxUs', float('nan')):9.1f}")
    print(f"errors raised as expected: {record['summary']['errorsOk']} "
          + ", ".join(f"{k}={'ok' if v['ok'] else 'NO'}" for k, v in errs.items()))
    print(f"all correct: {record['summary']['allCorrect']}; suite within 10% of kevo eval: "
          f"{record['summary']['suiteWithin10pct']} (geometric mean ratio {geo:.3f})")
    print(f"refused (a plan kevo did not judge that far): {record['summary']['refused']}")
    suite_refused = [r for r in rows_out if r["kind"] == "suite" and "refused" in r]
    return 0 if record["summary"]["allCorrect"] and record["summary"]["errorsOk"] and not suite_refused else 1


if __name__ == "__main__":
    sys.exit(main())
