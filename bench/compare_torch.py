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
import ctypes, datetime, json, math, os, re, statistics, subprocess, sys

import torch
import triton
import triton.language as tl

SUITE = "evaluator/suites/standard.yaml"
# kevo's dtype ids: x's and y's torch dtypes, and the element types kevo.h gives a kernel for them
DTYPES = {"fp32": (torch.float32, torch.float32), "bf16": (torch.bfloat16, torch.bfloat16),
          "fp16": (torch.float16, torch.float16), "bf16-fp32": (torch.bfloat16, torch.float32)}
CUDA_TYPES = {torch.float32: "float", torch.bfloat16: "kevo_bf16", torch.float16: "kevo_half"}
# A kernel's largest error against the float64 softmax before it is called wrong and not timed, by y's dtype:
# about 2 units in the last place near 1 in the 16-bit types.
MAX_ERROR = {torch.float32: 1e-5, torch.bfloat16: 1.6e-2, torch.float16: 2e-3}
KEVO_H = "src/main/resources/dev/kevo/cuda/kevo.h"
ROUNDS, WARMUP = 60, 10


# ---- Triton's fused softmax, as in Triton's tutorial ----
@triton.jit
def triton_softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                          BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        # float32 math whatever x's dtype (tl.exp takes fp32 or fp64); the store rounds to y's dtype
        row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float('inf')).to(tl.float32)
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator, mask=mask)


@triton.jit
def triton_copy_kernel(dst_ptr, src_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def triton_copy(x, y):
    n = x.numel()
    triton_copy_kernel[(triton.cdiv(n, 4096),)](y, x, n, BLOCK=4096, num_warps=8)


TRITON_MAX_BLOCK = 1 << 17  # the tutorial holds a whole row in one program; beyond this it does not compile sanely


def triton_softmax(x, y, sms):
    n_rows, n_cols = x.shape
    block = triton.next_power_of_2(n_cols)
    warps = 8 if block >= 2048 else 4
    warps = 16 if block >= 4096 else warps
    grid = (min(n_rows, sms * 4),)
    triton_softmax_kernel[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=block, num_stages=2,
                                num_warps=warps)


# ---- NVRTC and the driver API through ctypes (the process's CUDA context is torch's) ----
class Cuda:
    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        names = ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
        dirs = ["", "/usr/local/cuda/targets/x86_64-linux/lib/", "/usr/local/cuda-13.0/targets/x86_64-linux/lib/"]
        self.nvrtc = None
        for d in dirs:
            for n in names:
                try:
                    self.nvrtc = ctypes.CDLL(d + n)
                    break
                except OSError:
                    pass
            if self.nvrtc:
                break
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        self.nvrtc_version = f"{major.value}.{minor.value}"

    def check(self, rc, what):
        if rc != 0:
            raise RuntimeError(f"{what} failed with CUDA error {rc}")

    def compile(self, name, source, headers, arch):
        prog = ctypes.c_void_p()
        hnames = (ctypes.c_char_p * len(headers))(*[k.encode() for k in headers])
        hsrcs = (ctypes.c_char_p * len(headers))(*[v.encode() for v in headers.values()])
        self.check(self.nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), len(headers),
                                                 hsrcs, hnames), "nvrtcCreateProgram")
        opts = [b"--std=c++17", f"--gpu-architecture={arch}".encode()]
        rc = self.nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        size = ctypes.c_size_t()
        self.nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        self.nvrtc.nvrtcGetProgramLog(prog, log)
        if rc != 0:
            raise RuntimeError(f"{name}: NVRTC: {log.value.decode()}")
        self.nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        cubin = ctypes.create_string_buffer(size.value)
        self.check(self.nvrtc.nvrtcGetCUBIN(prog, cubin), "nvrtcGetCUBIN")
        return cubin

    def load(self, cubin):
        module = ctypes.c_void_p()
        self.check(self.cu.cuModuleLoadData(ctypes.byref(module), cubin), "cuModuleLoadData")
        return module

    def function(self, module, name):
        f = ctypes.c_void_p()
        self.check(self.cu.cuModuleGetFunction(ctypes.byref(f), module, name.encode()), f"cuModuleGetFunction({name})")
        return f

    def bind(self, f, grid, block, smem, cooperative, args, stream, cluster=1):
        """Everything a launch needs, resolved once, so that a timed launch is one foreign call."""
        holders = [ctypes.c_void_p(a) if isinstance(a, Ptr) else ctypes.c_int(a) for a in args]
        params = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.byref(h), ctypes.c_void_p) for h in holders])
        # Static and dynamic shared memory together may take 48 KB without asking (as kevo's Module and export do).
        static = ctypes.c_int()
        self.check(self.cu.cuFuncGetAttribute(ctypes.byref(static), 1, f), "cuFuncGetAttribute(static shared)")
        if smem > 48 * 1024 - static.value:
            self.check(self.cu.cuFuncSetAttribute(f, 8, smem), "cuFuncSetAttribute(max dynamic shared)")
        s = ctypes.c_void_p(stream)
        if cluster > 1:
            # A cluster size set at run time needs cuLaunchKernelEx: the function attribute
            # CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH is refused once the kernel is loaded
            # (CUDA_ERROR_INVALID_CLUSTER_SIZE on the H100).
            if cluster > 8:
                self.check(self.cu.cuFuncSetAttribute(f, 14, 1), "cuFuncSetAttribute(non-portable cluster size)")
            attr = LaunchAttribute(id=4, x=cluster, y=1, z=1)  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            config = LaunchConfig(grid, 1, 1, block, 1, 1, smem, s, ctypes.pointer(attr), 1)
            call = lambda: self.cu.cuLaunchKernelEx(ctypes.byref(config), f, params, None)
            return call, (holders, params, attr, config)
        if cooperative:
            call = lambda: self.cu.cuLaunchCooperativeKernel(f, grid, 1, 1, block, 1, 1, smem, s, params)
        else:
            call = lambda: self.cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, smem, s, params, None)
        return call, (holders, params)


class Ptr(int):
    pass


class LaunchAttribute(ctypes.Structure):  # CUlaunchAttribute: an id, padding, a 64-byte value union
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("x", ctypes.c_uint), ("y", ctypes.c_uint),
                ("z", ctypes.c_uint), ("rest", ctypes.c_char * 52)]


class LaunchConfig(ctypes.Structure):  # CUlaunchConfig
    _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint), ("bx", ctypes.c_uint),
                ("by", ctypes.c_uint), ("bz", ctypes.c_uint), ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)), ("n", ctypes.c_uint)]


def expr(text, rows, cols, sms, knobs=None):
    """A kevo plan expression: integers, C division, cdiv/min/max, comparisons and && || !, over the file's knobs."""
    t = str(text)
    t = re.sub(r"(?<![=!<>])!(?!=)", " not ", t).replace("&&", " and ").replace("||", " or ")
    t = re.sub(r"(?<!/)/(?!/)", "//", t)
    value = eval(t, {"__builtins__": {}}, {**(knobs or {}), "rows": rows, "cols": cols, "sms": sms, "min": min,
                                          "max": max, "cdiv": lambda a, b: -(-a // b), "true": True, "false": False})
    return value


class KevoKernel:
    """A kevo kernel file: compiled with its knobs' values defined as macros, as kevo compiles it; its plan's
    expressions see the integer knobs; a launch's "cluster" runs its blocks in thread-block clusters."""

    def __init__(self, cuda, path, arch, sms, dtype="fp32"):
        self.cuda, self.path, self.sms = cuda, path, sms
        source = open(path).read()
        header = re.search(r"/\*@kevo(.*?)\*/", source, re.S).group(1)
        self.plan = json.loads(header)
        self.knobs = {k: v["value"] for k, v in self.plan.get("knobs", {}).items()}
        declared = self.plan.get("dtype", "fp32")
        if dtype not in (declared if isinstance(declared, list) else [declared]):
            raise SystemExit(f"{path} implements dtype {declared}, not {dtype}")
        xt, yt = DTYPES[dtype]
        defines = "".join(f"#define {k} {v}\n" for k, v in self.knobs.items())
        defines += f"#define KEVO_X {CUDA_TYPES[xt]}\n#define KEVO_Y {CUDA_TYPES[yt]}\n"
        cubin = cuda.compile(os.path.basename(path), defines + source, {"kevo.h": open(KEVO_H).read()}, arch)
        self.module = cuda.load(cubin)
        self.functions = {}

    def value(self, text, rows, cols):
        return int(expr(text, rows, cols, self.sms, self.knobs))

    def prepare(self, rows, cols):
        for plan in self.plan["plans"]:
            if expr(plan.get("when", "true"), rows, cols, self.sms, self.knobs):
                ws = self.value(self.plan.get("workspace", 0), rows, cols)
                return plan, torch.empty(max(ws, 16), dtype=torch.uint8, device="cuda")
        raise RuntimeError(f"{self.path}: no plan for {rows}x{cols}")

    def bind(self, plan, ws, x, y, stream):
        """The plan's launches for this shape and these buffers, as a function that enqueues them."""
        rows, cols = x.shape
        calls, keep = [], []
        for launch in plan["launches"]:
            name = launch["kernel"]
            if name not in self.functions:
                self.functions[name] = self.cuda.function(self.module, name)
            args = []
            for a in launch["args"]:
                key = str(a).strip().lower()
                args.append(Ptr(x.data_ptr()) if key == "x" else Ptr(y.data_ptr()) if key == "y"
                            else Ptr(ws.data_ptr()) if key == "ws" else self.value(a, rows, cols))
            call, held = self.cuda.bind(self.functions[name], self.value(launch["grid"], rows, cols),
                                        self.value(launch["block"], rows, cols),
                                        self.value(launch.get("smem", 0), rows, cols),
                                        bool(launch.get("cooperative")), args, stream,
                                        self.value(launch.get("cluster", 1), rows, cols))
            calls.append(call)
            keep.append(held)

        def run():
            for c in calls:
                if c() != 0:
                    raise RuntimeError(f"{self.path}: launch failed")
        run.keep = keep  # the argument buffers must outlive every launch
        return run


def suite_shapes(suite):
    text = open(suite).read()
    return [tuple(int(v) for v in s.split("x")) for s in re.findall(r"\b(\d+x\d+)\b", text.split("shapes", 1)[1])]


def shares(ours, theirs):
    """The shares of paired rounds in which ours was faster and slower than theirs."""
    pairs = list(zip(ours, theirs))
    return {"faster": sum(a < b for a, b in pairs) / len(pairs), "slower": sum(a > b for a, b in pairs) / len(pairs)}


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
    flush = torch.empty(2 * props.L2_cache_size // 4, dtype=torch.float32, device="cuda").fill_(1)
    sink = torch.empty((), device="cuda")
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
        variants = {"copy": lambda: y.copy_(x), "copy kernel (triton)": lambda: triton_copy(x, y),
                    "torch.softmax": softmax}
        triton_copy(x, y)
        assert torch.equal(x.to(yt), y), "the Triton copy kernel does not copy: no floor from it"
        notes = {}
        if triton.next_power_of_2(cols) <= TRITON_MAX_BLOCK:
            try:
                triton_softmax(x, y, sms)
                torch.cuda.synchronize()
                err = (y.double() - ref).abs().max().item()
                variants["triton fused (tutorial)"] = lambda: triton_softmax(x, y, sms)
                notes["triton fused (tutorial)"] = {"maxAbsError": err}
            except Exception as e:  # noqa: BLE001 - recorded, not hidden
                notes["triton fused (tutorial)"] = {"error": str(e).splitlines()[0][:200]}
        else:
            notes["triton fused (tutorial)"] = {"error": "a row is held by one program: not for rows over "
                                                         f"{TRITON_MAX_BLOCK} columns"}
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
                # The GPU sleeps ~100 us before the timed region, so the host's launch overhead (Python, ctypes,
                # Triton's launcher) is over before the start event: no timed region holds a wait for the host.
                torch.cuda._sleep(200_000)
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                variants[n]()
                end.record()
                times[n].append((start, end))
        torch.cuda.synchronize()
        row = {"shape": f"{rows}x{cols}", "results": {}}
        copies = {n: statistics.median(s.elapsed_time(e) * 1000 for s, e in times[n])
                  for n in ("copy", "copy kernel (triton)")}
        floor_by = min(copies, key=copies.get)
        copy_median = copies[floor_by]
        row["floorBy"] = floor_by
        per_round = {n: [s.elapsed_time(e) * 1000 for s, e in pairs] for n, pairs in times.items()}
        for n, raw in per_round.items():
            us = sorted(raw)
            med = statistics.median(us)
            # The median's 95% interval by order statistics: ranks n/2 -+ 1.96 sqrt(n)/2.
            k = max(0, int(len(us) / 2 - 0.98 * math.sqrt(len(us))))
            row["results"][n] = {"medianUs": med, "medianCi95Us": [us[k], us[len(us) - 1 - k]],
                                 "p10Us": us[len(us) // 10], "p90Us": us[len(us) * 9 // 10],
                                 "floorFraction": copy_median / med, **notes.get(n, {})}
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
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    record = {"what": "kevo kernels vs torch.softmax vs Triton fused softmax (tutorial), same GPU, same process",
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "command": "python3 bench/compare_torch.py " + " ".join(sys.argv[1:]),
              "commit": os.environ.get("KEVO_COMMIT") or subprocess.run(["git", "rev-parse", "HEAD"],
                                                                         capture_output=True, text=True).stdout.strip(),
              "nvidiaSmi": smi, "torch": torch.__version__, "triton": triton.__version__,
              "nvrtc": cuda.nvrtc_version, "dtype": dtype, "method": f"{WARMUP} warm-up rounds, {rounds} interleaved rounds, L2 "
                                                     "flushed (2x L2 read) before each launch, CUDA events, median",
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
