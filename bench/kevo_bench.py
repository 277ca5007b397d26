"""What the bench scripts that time kernels in one process share (compare_torch.py, family.py, and export_torch.py
through compare_torch): kevo kernel files compiled with NVRTC (--std=c++17, kevo.h supplied in memory, knobs as
macros) and launched by their own /*@kevo plan through the driver API, arguments bound by name (tensors, null
pointers, a float scale) and plans seeing an attention shape's batch, heads, queries and mask_kind; suites read as
kevo reads them (attention shapes, a masks: list); the Triton kernels timed beside them (the fused-softmax tutorial's
kernel, log_softmax and masked_softmax kernels in its style, a copy kernel); the L2 flush; the memory floor's two
copies; the interleaved timing loop; the medians with their 95% intervals; and the stamp every record carries.

One method for all, so that numbers from the scripts compare: CUDA events around each launch, L2 flushed before each
(a 2x L2 buffer read, outside the events), the variants interleaved round by round in a rotating order, and the GPU
kept busy while the host enqueues each timed launch (as nvbench's blocking kernel does), so no timed region holds a
wait for the host.
"""
import ctypes, datetime, json, math, os, re, statistics, subprocess

import torch
import triton
import triton.language as tl

# kevo's dtype ids: x's and y's torch dtypes, and the element types kevo.h gives a kernel for them
DTYPES = {"fp32": (torch.float32, torch.float32), "bf16": (torch.bfloat16, torch.bfloat16),
          "fp16": (torch.float16, torch.float16), "bf16-fp32": (torch.bfloat16, torch.float32)}
CUDA_TYPES = {torch.float32: "float", torch.bfloat16: "kevo_bf16", torch.float16: "kevo_half"}
KEVO_H = "src/main/resources/dev/kevo/cuda/kevo.h"
ROUNDS, WARMUP = 60, 10


# ---- Triton: the fused softmax of Triton's tutorial, a log_softmax in the same style, and a copy ----
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
def triton_log_softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
                              BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # The tutorial's kernel with log-probabilities written: a whole row in one program, x - max - log(sum exp).
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_start_ptr = input_ptr + row_idx * input_row_stride
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float('inf')).to(tl.float32)
        row_minus_max = row - tl.max(row, axis=0)
        # The difference first, then the log of the sum (>= 1: the maximum adds exp(0)), never the log of a
        # probability: that underflows to -inf for entries more than ~104 below the maximum, whose answer is finite.
        log_sum = tl.log(tl.sum(tl.exp(row_minus_max), axis=0))
        tl.store(output_ptr + row_idx * output_row_stride + col_offsets, row_minus_max - log_sum, mask=mask)


@triton.jit
def triton_softmax_backward_kernel(dx_ptr, y_ptr, dy_ptr, row_stride, n_rows, n_cols, LOG: tl.constexpr,
                                   BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    # The tutorial's style for the backward of softmax (LOG False: dx = y * (dy - sum(y * dy))) and of log_softmax
    # (LOG True: dx = dy - exp(y) * sum(dy)): a whole row of y and dy in one program, the row's dot product in float32.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        y = tl.load(y_ptr + row_idx * row_stride + col_offsets, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row_idx * row_stride + col_offsets, mask=mask, other=0.0).to(tl.float32)
        if LOG:
            dx = dy - tl.exp(y) * tl.sum(dy, axis=0)
        else:
            dx = y * (dy - tl.sum(y * dy, axis=0))
        tl.store(dx_ptr + row_idx * row_stride + col_offsets, dx, mask=mask)


@triton.jit
def triton_softmax_backward_tiled_kernel(dx_ptr, y_ptr, dy_ptr, row_stride, n_rows, n_cols, LOG: tl.constexpr,
                                         TILE: tl.constexpr):
    # Rows longer than one program holds (the tutorial's kernel runs out of shared memory past 16384 float32 columns):
    # the row's dot product over tiles of TILE columns, accumulated per lane in float32 and summed once, then a second
    # pass over the tiles that re-reads y and dy (from L2 while the rows in flight fit it) and writes dx, as Liger's and
    # Unsloth's kernels split long rows. log_softmax's dot product is sum(dy): its first pass reads dy alone.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step):
        base = row_idx * row_stride
        acc = tl.zeros([TILE], dtype=tl.float32)
        for start in tl.range(0, n_cols, TILE):
            cols = start + tl.arange(0, TILE)
            mask = cols < n_cols
            dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            if LOG:
                acc += dy
            else:
                acc += tl.load(y_ptr + base + cols, mask=mask, other=0.0).to(tl.float32) * dy
        dot = tl.sum(acc, axis=0)
        for start in tl.range(0, n_cols, TILE):
            cols = start + tl.arange(0, TILE)
            mask = cols < n_cols
            y = tl.load(y_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            dy = tl.load(dy_ptr + base + cols, mask=mask, other=0.0).to(tl.float32)
            if LOG:
                dx = dy - tl.exp(y) * dot
            else:
                dx = y * (dy - dot)
            tl.store(dx_ptr + base + cols, dx, mask=mask)


@triton.jit
def triton_copy_kernel(dst_ptr, src_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(dst_ptr + offsets, tl.load(src_ptr + offsets, mask=mask), mask=mask)


def triton_copy(x, y):
    n = x.numel()
    triton_copy_kernel[(triton.cdiv(n, 4096),)](y, x, n, BLOCK=4096, num_warps=8)


TRITON_MAX_BLOCK = 1 << 17  # the tutorial holds a whole row in one program; beyond this it does not compile sanely


def triton_rows_refusal(cols):
    """Why a kernel that holds a whole row in one program is not run on rows this long, or None where it is."""
    if triton.next_power_of_2(cols) <= TRITON_MAX_BLOCK:
        return None
    return f"a row is held by one program: not for rows over {TRITON_MAX_BLOCK} columns"


def tutorial_launch(n_rows, n_cols, sms):
    """The tutorial's launch of a one-program-a-row kernel: a whole row in one block of next_power_of_2(cols),
    programs looping over the rows, 4 a multiprocessor. The grid, and the launch's keyword arguments."""
    block = triton.next_power_of_2(n_cols)
    warps = 16 if block >= 4096 else 8 if block >= 2048 else 4
    return (min(n_rows, sms * 4),), {"BLOCK_SIZE": block, "num_stages": 2, "num_warps": warps}


def triton_rows(kernel, x, y, sms):
    """A one-program-a-row kernel of the tutorial's signature, launched as the tutorial launches it."""
    n_rows, n_cols = x.shape
    grid, launch = tutorial_launch(n_rows, n_cols, sms)
    kernel[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols, **launch)


TRITON_BACKWARD_WHOLE_ROW = 1 << 14  # past this the tutorial's kernel needs more shared memory than an SM has


def triton_backward(y, dy, dx, log, sms):
    """triton_softmax_backward_kernel, launched as the tutorial launches its softmax, for rows one program holds;
    longer rows take triton_softmax_backward_tiled_kernel, a program a row (programs looping over the rows, 4 a
    multiprocessor) over tiles of 4096 columns."""
    n_rows, n_cols = y.shape
    if triton.next_power_of_2(n_cols) <= TRITON_BACKWARD_WHOLE_ROW:
        grid, launch = tutorial_launch(n_rows, n_cols, sms)
        triton_softmax_backward_kernel[grid](dx, y, dy, y.stride(0), n_rows, n_cols, LOG=log, **launch)
    else:
        triton_softmax_backward_tiled_kernel[(min(n_rows, sms * 4),)](dx, y, dy, y.stride(0), n_rows, n_cols, LOG=log,
                                                                      TILE=4096, num_warps=8)


def triton_softmax(x, y, sms):
    triton_rows(triton_softmax_kernel, x, y, sms)


@triton.jit
def triton_masked_softmax_kernel(output_ptr, input_ptr, lengths_ptr, mask_ptr, scale, lowest, n_rows, n_cols, heads,
                                 queries, MASK_KIND: tl.constexpr, BLOCK_SIZE: tl.constexpr,
                                 num_stages: tl.constexpr):
    # masked_softmax in the tutorial's style: one program a row (programs looping over the rows), the whole row in one
    # block. The mask comes from the row's query index (causal, bottom-right aligned: key c visible while c <= q +
    # n_cols - queries), its batch entry's length (padding) or its row of the [batch, queries, keys] mask, broadcast
    # over heads (additive: -inf or x's type's lowest value masks, anything else is a bias); the kind is a constexpr,
    # so each kind compiles to its own kernel, as a Triton author writes it. The score is x * scale + bias in float32,
    # the scale applied before the maximum; masked keys give exactly 0, and a row with no key left writes 0.
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        in_row = col_offsets < n_cols
        q = row_idx % queries
        b = row_idx // (queries * heads)
        visible = in_row
        if MASK_KIND == 1:
            visible = visible & (col_offsets <= q + n_cols - queries)
        if MASK_KIND == 2:
            visible = visible & (col_offsets < tl.load(lengths_ptr + b))
        row_offset = row_idx.to(tl.int64) * n_cols
        # keys a causal or padding mask hides are not read
        row = tl.load(input_ptr + row_offset + col_offsets, mask=visible, other=0.0).to(tl.float32)
        if MASK_KIND == 3:
            mask_offset = (b.to(tl.int64) * queries + q) * n_cols
            bias = tl.load(mask_ptr + mask_offset + col_offsets, mask=in_row, other=0.0).to(tl.float32)
            visible = visible & (bias != -float('inf')) & (bias != lowest)
            score = row * scale + bias
        else:
            score = row * scale
        score = tl.where(visible, score, -float('inf'))
        row_max = tl.max(score, axis=0)
        # where the row has no key left, row_max is -inf and score - row_max NaN: every such key is masked, so 0
        numerator = tl.where(visible, tl.exp(score - row_max), 0.0)
        denominator = tl.sum(numerator, axis=0)
        inverse = tl.where(denominator > 0, 1.0 / denominator, 0.0)
        tl.store(output_ptr + row_offset + col_offsets, numerator * inverse, mask=in_row)


def triton_masked_softmax(x, y, lengths, mask, scale, heads, queries, mask_kind, sms):
    """The masked_softmax kernel above, launched as the tutorial launches its kernel (tutorial_launch). A mask tensor
    the kind does not read is never loaded (its branch is compiled out), so x stands in for it."""
    n_rows, n_cols = x.shape
    grid, launch = tutorial_launch(n_rows, n_cols, sms)
    triton_masked_softmax_kernel[grid](
        y, x, x if lengths is None else lengths, x if mask is None else mask, scale, torch.finfo(x.dtype).min,
        n_rows, n_cols, heads, queries, MASK_KIND=mask_kind, **launch)


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
        holders = [ctypes.c_void_p(a) if isinstance(a, Ptr) else ctypes.c_float(a) if isinstance(a, F32)
                   else ctypes.c_int(a) for a in args]
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


class F32(float):
    """A runtime float argument (masked_softmax's scale): passed as a C float."""


class LaunchAttribute(ctypes.Structure):  # CUlaunchAttribute: an id, padding, a 64-byte value union
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("x", ctypes.c_uint), ("y", ctypes.c_uint),
                ("z", ctypes.c_uint), ("rest", ctypes.c_char * 52)]


class LaunchConfig(ctypes.Structure):  # CUlaunchConfig
    _fields_ = [("gx", ctypes.c_uint), ("gy", ctypes.c_uint), ("gz", ctypes.c_uint), ("bx", ctypes.c_uint),
                ("by", ctypes.c_uint), ("bz", ctypes.c_uint), ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(LaunchAttribute)), ("n", ctypes.c_uint)]


def expr(text, rows, cols, sms, knobs=None, variables=None):
    """A kevo plan expression: integers, C division, cdiv/min/max, comparisons and && || !, over the file's knobs and
    the shape's plan variables (an attention shape's batch, heads, queries and mask_kind: plain_variables where none
    are given)."""
    t = str(text)
    t = re.sub(r"(?<![=!<>])!(?!=)", " not ", t).replace("&&", " and ").replace("||", " or ")
    t = re.sub(r"(?<!/)/(?!/)", "//", t)
    names = {**(variables or plain_variables(rows)), **(knobs or {}), "rows": rows, "cols": cols, "sms": sms,
             "min": min, "max": max, "cdiv": lambda a, b: -(-a // b), "true": True, "false": False}
    value = eval(t, {"__builtins__": {}}, names)
    return value


def kevo_header(path):
    """A kernel file's /*@kevo header, parsed."""
    match = re.search(r"/\*@kevo(.*?)\*/", open(path).read(), re.S)
    if not match:
        raise SystemExit(f"{path}: no /*@kevo header")
    return json.loads(match.group(1))


def header_dtypes(header):
    declared = header.get("dtype", "fp32")
    return declared if isinstance(declared, list) else [declared]


class KevoKernel:
    """A kevo kernel file: compiled with its knobs' values defined as macros, as kevo compiles it; its plan's
    expressions see the integer knobs; a launch's "cluster" runs its blocks in thread-block clusters. The file must
    implement the operator and dtype asked for (header keys op, default softmax, and dtype), as kevo requires."""

    def __init__(self, cuda, path, arch, sms, dtype="fp32", op="softmax"):
        self.cuda, self.path, self.sms = cuda, path, sms
        self.plan = kevo_header(path)
        self.knobs = {k: v["value"] for k, v in self.plan.get("knobs", {}).items()}
        if dtype not in header_dtypes(self.plan):
            raise SystemExit(f"{path} implements dtype {self.plan.get('dtype', 'fp32')}, not {dtype}")
        if self.plan.get("op", "softmax") != op:
            raise SystemExit(f"{path} implements op {self.plan.get('op', 'softmax')}, not {op}")
        xt, yt = DTYPES[dtype]
        defines = "".join(f"#define {k} {v}\n" for k, v in self.knobs.items())
        defines += f"#define KEVO_X {CUDA_TYPES[xt]}\n#define KEVO_Y {CUDA_TYPES[yt]}\n"
        cubin = cuda.compile(os.path.basename(path), defines + open(path).read(), {"kevo.h": open(KEVO_H).read()},
                             arch)
        self.module = cuda.load(cubin)
        self.functions = {}

    def value(self, text, rows, cols, variables=None):
        return int(expr(text, rows, cols, self.sms, self.knobs, variables))

    def choose(self, rows, cols, variables=None):
        """The first plan whose "when" holds for the shape (its plan variables given for an attention shape)."""
        for plan in self.plan["plans"]:
            if expr(plan.get("when", "true"), rows, cols, self.sms, self.knobs, variables):
                return plan
        raise RuntimeError(f"{self.path}: no plan for {rows}x{cols}"
                           + (f" ({variables})" if variables else ""))

    def prepare(self, rows, cols, variables=None):
        plan = self.choose(rows, cols, variables)
        ws = self.value(self.plan.get("workspace", 0), rows, cols, variables)
        return plan, torch.empty(max(ws, 16), dtype=torch.uint8, device="cuda")

    def bind(self, plan, ws, x, y, stream):
        """The plan's launches for x and y (softmax's tensors), as a function that enqueues them."""
        rows, cols = x.shape
        return self.bind_tensors(plan, {"x": x, "y": y, "ws": ws}, rows, cols, stream)

    def bind_tensors(self, plan, tensors, rows, cols, stream, variables=None):
        """The plan's launches with the operator's arguments bound by name, as a function that enqueues them: tensors
        (and "ws") as pointers, None as a null pointer (a mask tensor its kind does not read), a Python float as a C
        float (the scale); any other argument an int expression over rows, cols, sms, the knobs and the plan
        variables (batch, heads, queries, mask_kind)."""
        calls, keep = [], []
        for launch in plan["launches"]:
            name = launch["kernel"]
            if name not in self.functions:
                self.functions[name] = self.cuda.function(self.module, name)
            args = [self.argument(a, tensors, rows, cols, variables) for a in launch["args"]]
            value = lambda key, default=None: self.value(launch[key] if default is None else launch.get(key, default),
                                                         rows, cols, variables)
            call, held = self.cuda.bind(self.functions[name], value("grid"), value("block"), value("smem", 0),
                                        bool(launch.get("cooperative")), args, stream, value("cluster", 1))
            calls.append(call)
            keep.append(held)

        def run():
            for c in calls:
                if c() != 0:
                    raise RuntimeError(f"{self.path}: launch failed")
        run.keep = keep  # the argument buffers must outlive every launch
        return run

    def argument(self, a, tensors, rows, cols, variables=None):
        key = str(a).strip().lower()
        if key not in tensors:
            return self.value(a, rows, cols, variables)
        t = tensors[key]
        if t is None:
            return Ptr(0)
        if isinstance(t, float):
            return F32(t)
        return Ptr(t.data_ptr())


def suite_shapes(suite):
    text = open(suite).read()
    return [tuple(int(v) for v in s.split("x")) for s in re.findall(r"\b(\d+x\d+)\b", text.split("shapes", 1)[1])]


# ---- suites of attention shapes (kevo's Shape, MaskKind and SuiteFile, in Python) ----
MASK_KINDS = ("none", "causal", "padding", "additive")  # MaskKind's order: the plan variable mask_kind is the index


def plain_variables(rows):
    """The plan variables of a plain shape: one batch entry of one head whose queries are its rows, masked by
    nothing."""
    return {"batch": 1, "heads": 1, "queries": rows, "mask_kind": 0}


class Shape:
    """A suite shape as kevo reads it (dev.kevo.data.Shape): ROWSxCOLS, or BATCHxHEADSxQUERIESxKEYS (rows = batch x
    heads x queries, cols = keys), either with :KIND after it. Row r is query r % queries of head (r / queries) %
    heads of batch entry r / (queries * heads)."""

    def __init__(self, rows, cols, batch=1, heads=1, mask="none"):
        if rows < 1 or cols < 1 or batch < 1 or heads < 1 or rows % (batch * heads):
            raise ValueError(f"shape of {rows} rows x {cols}: not {batch} batch entries x {heads} heads x a whole "
                             "number of queries")
        if mask not in MASK_KINDS:
            raise ValueError(f"unknown mask kind '{mask}' (known: {', '.join(MASK_KINDS)})")
        self.rows, self.cols, self.batch, self.heads, self.mask = rows, cols, batch, heads, mask

    @property
    def queries(self):
        return self.rows // (self.batch * self.heads)

    @property
    def keys(self):
        return self.cols

    @property
    def mask_kind(self):
        return MASK_KINDS.index(self.mask)

    def variables(self):
        """What a plan may read beside rows, cols and sms."""
        return {"batch": self.batch, "heads": self.heads, "queries": self.queries, "mask_kind": self.mask_kind}

    def with_mask(self, kind):
        return Shape(self.rows, self.cols, self.batch, self.heads, kind)

    @staticmethod
    def parse(text):
        forms = "expected ROWSxCOLS or BATCHxHEADSxQUERIESxKEYS, either followed by :MASK"
        parts = str(text).strip().lower().split(":")
        if len(parts) > 2:
            raise ValueError(f"shape '{text}': {forms}")
        mask = parts[1].strip() if len(parts) == 2 else "none"
        try:
            sizes = [int(v.strip()) for v in parts[0].split("x")]
        except ValueError:
            raise ValueError(f"shape '{text}': {forms}") from None
        if len(sizes) == 2:
            return Shape(sizes[0], sizes[1], mask=mask)
        if len(sizes) == 4:
            b, h, q, k = sizes
            if min(sizes) < 1:
                raise ValueError(f"shape '{text}': batch, heads, queries and keys must be positive")
            return Shape(b * h * q, k, b, h, mask)
        raise ValueError(f"shape '{text}': {forms}")

    def __str__(self):
        """What kevo writes: ROWSxCOLS for one batch entry of one head, else BATCHxHEADSxQUERIESxKEYS; :MASK after
        unless none."""
        size = (f"{self.rows}x{self.cols}" if self.batch == 1 and self.heads == 1
                else f"{self.batch}x{self.heads}x{self.queries}x{self.cols}")
        return size if self.mask == "none" else f"{size}:{self.mask}"

    def _key(self):
        return (self.rows, self.cols, self.batch, self.heads, self.mask)

    def __eq__(self, other):
        return isinstance(other, Shape) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    __repr__ = __str__


def suite_keys(text):
    """The top-level keys of a suite file that kevo reads: a scalar, or a list written [a, b] or as "- a" lines
    (the subset of YAML the suites use; comments dropped)."""
    keys, current = {}, None
    for raw in text.splitlines():
        line = re.sub(r"\s+#.*$|^#.*$", "", raw).rstrip()
        if not line.strip():
            continue
        top = re.match(r"^([A-Za-z_][\w-]*):\s*(.*)$", line)
        if top:
            current, value = top.group(1), top.group(2).strip()
            if value.startswith("["):
                keys[current] = [v.strip().strip("'\"") for v in value.strip("[]").split(",") if v.strip()]
            elif value:
                keys[current] = value
            else:
                keys[current] = []
            continue
        item = re.match(r"^\s+-\s*(.*)$", line)
        if item and isinstance(keys.get(current), list):
            keys[current].append(item.group(1).strip().strip("'\""))
    return keys


def suite_cases(suite):
    """A suite's shapes as kevo's SuiteFile judges them: each parsed (Shape.parse), and one that names no mask kind
    taken once per kind of the suite's masks: list, in that order (without masks:, masked by nothing); a shape listed
    twice is an error."""
    keys = suite_keys(open(suite).read())
    shapes, masks = keys.get("shapes"), keys.get("masks")
    if not isinstance(shapes, list) or not shapes:
        raise ValueError(f"{suite}: 'shapes' must list at least one ROWSxCOLS shape")
    if masks is not None and (not isinstance(masks, list) or not masks):
        raise ValueError(f"{suite}: 'masks' must list at least one mask kind ({', '.join(MASK_KINDS)}), or be left "
                         "out")
    kinds = [m.strip().lower() for m in masks or []]
    for kind in kinds:
        if kind not in MASK_KINDS:
            raise ValueError(f"{suite}: 'masks': unknown mask kind '{kind}' (known: {', '.join(MASK_KINDS)})")
    cases = []
    for text in shapes:
        try:
            shape = Shape.parse(text)
        except ValueError as e:
            raise ValueError(f"{suite}: {e}") from None
        for s in [shape] if not kinds or ":" in text else [shape.with_mask(k) for k in kinds]:
            if s in cases:
                raise ValueError(f"{suite}: shape {s} is listed twice")
            cases.append(s)
    return cases


# ---- timing ----
class Flush:
    """Evicts L2 before a timed launch: a sum over a buffer twice L2's size, its result kept on the device."""

    def __init__(self, props):
        self.buffer = torch.empty(2 * props.L2_cache_size // 4, dtype=torch.float32, device="cuda").fill_(1)
        self.sink = torch.empty((), device="cuda")

    def __call__(self):
        torch.sum(self.buffer, dim=0, out=self.sink)


def floor_copies(src, dst):
    """The memory floor's two copies of src into dst, as kevo's evaluator times them: torch's copy_ (cudaMemcpy where
    the dtypes agree, a converting kernel where they do not) and a Triton copy kernel. The floor is the faster."""
    return {"copy": lambda: dst.copy_(src), "copy kernel (triton)": lambda: triton_copy(src, dst)}


def time_rounds(variants, rounds, flush, warmup=WARMUP):
    """Each variant's time in microseconds, one a round: after warm-up rounds, every round launches each variant once,
    in an order rotated each round (so none always runs first or after the same one), L2 flushed before each."""
    for _ in range(warmup):
        for f in variants.values():
            f()
    torch.cuda.synchronize()
    names = list(variants)
    times = {n: [] for n in names}
    for r in range(rounds):
        for i in range(len(names)):
            n = names[(r + i) % len(names)]
            flush()
            # The GPU sleeps ~100 us before the timed region, so the host's launch overhead (Python, ctypes,
            # Triton's launcher) is over before the start event: no timed region holds a wait for the host.
            torch.cuda._sleep(200_000)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            variants[n]()
            end.record()
            times[n].append((start, end))
    torch.cuda.synchronize()
    return {n: [s.elapsed_time(e) * 1000 for s, e in pairs] for n, pairs in times.items()}


# ---- statistics ----
def median_ci95(samples):
    """The median and its 95% interval by order statistics (ranks n/2 -+ 1.96 sqrt(n)/2): distribution-free, the
    interval a sign test would give."""
    us = sorted(samples)
    k = max(0, int(len(us) / 2 - 0.98 * math.sqrt(len(us))))
    return statistics.median(us), [us[k], us[len(us) - 1 - k]]


def summary(samples, floor_us):
    """A variant's times as the records give them: median, its 95% interval, p10, p90, and the floor's share."""
    us = sorted(samples)
    med, ci = median_ci95(us)
    return {"medianUs": med, "medianCi95Us": ci, "p10Us": us[len(us) // 10], "p90Us": us[len(us) * 9 // 10],
            "floorFraction": floor_us / med}


def shares(ours, theirs):
    """The shares of paired rounds in which ours was faster and slower than theirs."""
    pairs = list(zip(ours, theirs))
    return {"faster": sum(a < b for a, b in pairs) / len(pairs), "slower": sum(a > b for a, b in pairs) / len(pairs)}


# ---- the record's stamp ----
def nvidia_smi():
    """nvidia-smi's "name, driver_version" of each GPU, one a line ("" where there is no nvidia-smi)."""
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                              capture_output=True, text=True).stdout.strip()
    except FileNotFoundError:
        return ""


def commit():
    """The kevo commit measured: KEVO_COMMIT (a GPU host's copy of the tree may have no .git), else git's HEAD."""
    if os.environ.get("KEVO_COMMIT"):
        return os.environ["KEVO_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    except FileNotFoundError:
        return ""


def stamp(script, argv):
    """When, how and on what a record was made."""
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "command": f"python3 {script} " + " ".join(argv), "commit": commit(), "nvidiaSmi": nvidia_smi()}
