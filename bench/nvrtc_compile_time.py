#!/usr/bin/env python3
"""How long NVRTC takes to compile kernel files, and whether a faster way gives the same machine code. Compiles as
kevo does: --std=c++17, --gpu-architecture=ARCH, a knob's value as -DNAME=VALUE, kevo.h supplied in memory. Prints
one JSON object.

Default mode: each file with and without --split-compile (NVRTC 12.x and later run the optimizer on several
threads), alone and K copies at once (as kevo's compilers do at a generation's start), and whether the cubin is the
same bytes.
--per-kernel: each kernel of a rendered genome file compiled alone (the other kernels' definitions left out), its
time and whether its .text section is the same bytes as in the whole file's cubin.
Usage: python3 bench/nvrtc_compile_time.py [--nvrtc LIB] [--arch sm_90] [--reps 3] [--concurrency 3]
                                           [--splits none,0,4] [--per-kernel] FILE.cu [...]
"""
import argparse, ctypes, hashlib, json, os, re, statistics, struct, threading, time

KEVO_H = "src/main/resources/dev/kevo/cuda/kevo.h"
# A rendered genome file's kernels: a one-line signature, a one-line body, a closing brace.
RENDERED_KERNEL = re.compile(r'extern "C" __global__ void __launch_bounds__\([^)]*\) (\w+)\([^\n]*\{\n[^\n]*\n\}\n')


def knob_macros(text):
    """-DNAME=VALUE for each knob of the file's /*@kevo header, as kevo compiles a knobbed file."""
    start = text.find("/*@kevo")
    if start < 0:
        return []
    header = json.loads(text[start + len("/*@kevo"):text.index("*/", start)])
    return [f"-D{name}={knob['value']}" for name, knob in header.get("knobs", {}).items()]


def sections(elf):
    """An ELF64 cubin's sections, by name."""
    offset = struct.unpack_from("<Q", elf, 0x28)[0]
    size, count, names_index = struct.unpack_from("<HHH", elf, 0x3A)
    names = struct.unpack_from("<Q", elf, offset + names_index * size + 24)[0]
    out = {}
    for i in range(count):
        header = offset + i * size
        name_at = names + struct.unpack_from("<I", elf, header)[0]
        start, length = struct.unpack_from("<QQ", elf, header + 24)
        out[elf[name_at:elf.index(b"\0", name_at)].decode()] = elf[start:start + length]
    return out


class Compiler:
    def __init__(self, library):
        self.lib = ctypes.CDLL(library)
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        self.version = f"{major.value}.{minor.value}"
        self.header = open(KEVO_H).read().encode()

    def compile(self, source, options):
        """(seconds, cubin bytes), or (seconds, the start of the log) where NVRTC refuses it."""
        lib = self.lib
        prog = ctypes.c_void_p()
        names = (ctypes.c_char_p * 1)(b"kevo.h")
        headers = (ctypes.c_char_p * 1)(self.header)
        assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"kernel.cu", 1, headers, names) == 0
        opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
        start = time.perf_counter()
        rc = lib.nvrtcCompileProgram(prog, len(options), opts)
        seconds = time.perf_counter() - start
        size = ctypes.c_size_t()
        if rc != 0:
            lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            lib.nvrtcGetProgramLog(prog, log)
            lib.nvrtcDestroyProgram(ctypes.byref(prog))
            return seconds, "error: " + log.value.decode(errors="replace")[:200]
        lib.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        cubin = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetCUBIN(prog, cubin)
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
        return seconds, cubin.raw


def digest(result):
    return result if isinstance(result, str) else hashlib.sha256(result).hexdigest()[:16]


def split_rows(compiler, path, text, base, a):
    rows = []
    for split in a.splits.split(","):
        options = base + ([] if split == "none" else ["--split-compile=" + split])
        alone = [compiler.compile(text, options) for _ in range(a.reps)]
        together = []
        threads = [threading.Thread(target=lambda: together.append(compiler.compile(text, options)))
                   for _ in range(a.concurrency)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - start
        rows.append({"file": os.path.basename(path), "split": split,
                     "aloneSeconds": [round(s, 3) for s, _ in alone],
                     "aloneMedian": round(statistics.median(s for s, _ in alone), 3),
                     f"together{a.concurrency}WallSeconds": round(wall, 3),
                     "cubin": sorted({digest(r) for _, r in alone + together})})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def per_kernel_rows(compiler, path, text, base):
    kernels = [(m.group(1), m.start(), m.end()) for m in RENDERED_KERNEL.finditer(text)]
    if not kernels:
        return [{"file": os.path.basename(path), "error": "not a rendered genome file"}]
    whole_seconds, whole = compiler.compile(text, base)
    whole_text = sections(whole)
    rows = []
    for name, start, end in kernels:
        seconds, cubin = compiler.compile(text[:kernels[0][1]] + text[start:end], base)
        text_alone = sections(cubin).get(".text." + name)
        rows.append({"kernel": name, "seconds": round(seconds, 3),
                     "textIdentical": text_alone == whole_text.get(".text." + name),
                     "textBytes": len(whole_text.get(".text." + name, b""))})
    row = {"file": os.path.basename(path), "wholeSeconds": round(whole_seconds, 3), "kernels": rows,
           "identical": sum(r["textIdentical"] for r in rows),
           "sumAloneSeconds": round(sum(r["seconds"] for r in rows), 3)}
    print(json.dumps({k: v for k, v in row.items() if k != "kernels"}), flush=True)
    return [row]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nvrtc", default="/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so.13")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=3)
    p.add_argument("--splits", default="none,0,2,4,8")
    p.add_argument("--per-kernel", action="store_true")
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    compiler = Compiler(a.nvrtc)
    rows = []
    for path in a.files:
        text = open(path).read()
        base = ["--std=c++17", "--gpu-architecture=" + a.arch] + knob_macros(text)
        rows += per_kernel_rows(compiler, path, text, base) if a.per_kernel else split_rows(compiler, path, text,
                                                                                             base, a)
    print(json.dumps({"nvrtc": compiler.version, "library": a.nvrtc, "arch": a.arch, "cpus": os.cpu_count(),
                      "mode": "per-kernel" if a.per_kernel else "split-compile", "rows": rows}))


if __name__ == "__main__":
    main()
