#!/usr/bin/env python3
"""Is the persisting-L2 limit (CU_LIMIT_PERSISTING_L2_CACHE_SIZE) a setting of one CUDA context, or of the GPU?

kevo's worker sets it to 0 in its own context (Workbench). A setting the driver applied to the whole GPU would
reach other processes, which kevo must not do. This process sets the limit to 4 MiB in its primary context and,
while holding it, starts a second process that reads the limit in its own context. Prints both and writes OUT.json.
Driver API through ctypes (libcuda.so.1), no other dependency.
Usage: python3 bench/experiments/persisting_limit_probe.py OUT.json
"""
import ctypes, json, subprocess, sys

LIMIT_PERSISTING_L2 = 6


def context():
    cuda = ctypes.CDLL("libcuda.so.1")
    assert cuda.cuInit(0) == 0, "cuInit"
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert cuda.cuDeviceGet(ctypes.byref(dev), 0) == 0, "cuDeviceGet"
    assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0, "cuDevicePrimaryCtxRetain"
    assert cuda.cuCtxSetCurrent(ctx) == 0, "cuCtxSetCurrent"
    return cuda


def get(cuda):
    v = ctypes.c_size_t()
    rc = cuda.cuCtxGetLimit(ctypes.byref(v), LIMIT_PERSISTING_L2)
    return rc, v.value


def main():
    if sys.argv[1] == "--read":
        print(json.dumps(get(context())))
        return
    cuda = context()
    before = get(cuda)
    rc_set = cuda.cuCtxSetLimit(LIMIT_PERSISTING_L2, ctypes.c_size_t(4 << 20))
    here = get(cuda)
    other = json.loads(subprocess.run([sys.executable, __file__, "--read"], capture_output=True, text=True,
                                      check=True).stdout)
    cuda.cuCtxSetLimit(LIMIT_PERSISTING_L2, ctypes.c_size_t(before[1]))
    result = {"what": "persisting-L2 limit: set in one process, read in another while the first holds its context",
              "defaultHere": before, "setReturnCode": rc_set, "afterSetHere": here, "readInOtherProcess": other,
              "perContext": rc_set == 0 and here[1] > 0 and other[1] != here[1]}
    json.dump(result, open(sys.argv[1], "w"), indent=2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
