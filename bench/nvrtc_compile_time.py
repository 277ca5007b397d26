#!/usr/bin/env python3
"""How long NVRTC takes to compile kernel files, with and without --split-compile (NVRTC 12.x and later run the
optimizer on several threads), and whether the cubin is the same bytes. Compiles as kevo does: --std=c++17,
--gpu-architecture=ARCH, a knob's value as -DNAME=VALUE, kevo.h supplied in memory. Concurrency K compiles K
copies at once, as kevo's compilers do at a generation's start. Prints one JSON object.
Usage: python3 bench/nvrtc_compile_time.py [--nvrtc LIB] [--arch sm_90] [--reps 3] [--concurrency 3] FILE.cu [...]
"""
import argparse, ctypes, hashlib, json, os, statistics, threading, time

KEVO_H = "src/main/resources/dev/kevo/cuda/kevo.h"


def knob_macros(text):
    """-DNAME=VALUE for each knob of the file's /*@kevo header, as kevo compiles a knobbed file."""
    start = text.find("/*@kevo")
    if start < 0:
        return []
    header = json.loads(text[start + len("/*@kevo"):text.index("*/", start)])
    return [f"-D{name}={knob['value']}" for name, knob in header.get("knobs", {}).items()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--nvrtc", default="/usr/local/cuda-13.0/targets/x86_64-linux/lib/libnvrtc.so.13")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--concurrency", type=int, default=3)
    p.add_argument("--splits", default="none,0,2,4,8")
    p.add_argument("files", nargs="+")
    a = p.parse_args()
    lib = ctypes.CDLL(a.nvrtc)
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    header = open(KEVO_H).read().encode()

    def compile_once(source, options):
        prog = ctypes.c_void_p()
        names = (ctypes.c_char_p * 1)(b"kevo.h")
        sources = (ctypes.c_char_p * 1)(header)
        assert lib.nvrtcCreateProgram(ctypes.byref(prog), source, b"kernel.cu", 1, sources, names) == 0
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
        return seconds, hashlib.sha256(cubin.raw).hexdigest()[:16]

    rows = []
    for path in a.files:
        text = open(path).read()
        source = text.encode()
        for split in a.splits.split(","):
            options = ["--std=c++17", "--gpu-architecture=" + a.arch] + knob_macros(text)
            if split != "none":
                options.append("--split-compile=" + split)
            alone = [compile_once(source, options) for _ in range(a.reps)]
            together = []

            def one():
                together.append(compile_once(source, options))
            threads = [threading.Thread(target=one) for _ in range(a.concurrency)]
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
                         "cubin": sorted({h for _, h in alone + together})})
            print(json.dumps(rows[-1]), flush=True)
    print(json.dumps({"nvrtc": f"{major.value}.{minor.value}", "library": a.nvrtc, "arch": a.arch,
                      "cpus": os.cpu_count(), "rows": rows}))


if __name__ == "__main__":
    main()
