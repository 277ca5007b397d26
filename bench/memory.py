#!/usr/bin/env python3
"""Supervisor memory over many candidates: N candidates (the adversarial corpus minus its timeouts, and the
seeds, in turn) through one `kevo eval` on the quick suite, sampling the supervisor's resident memory and logging
its heap after every garbage collection. A leak shows as live heap after GC growing with candidates; resident
memory alone also grows while the JVM sizes its heap. Writes the result into the "memory" key of OUT.json
(creating it if needed). Usage (after `source tools/unpack.sh`): python3 bench/memory.py OUT.json [N]
"""
import datetime, glob, json, os, re, statistics, subprocess, sys, tempfile, time

def expected(path):
    m = re.search(r"^// @expect (\S+)", open(path).read(), re.M)
    return m.group(1) if m else None

def main():
    out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 500
    kevo = os.environ["KEVO"]
    cheap = [f for f in sorted(glob.glob("evaluator/adversarial/*.cu"))
             if expected(f) not in ("kernel-timeout", "compile-timeout")]
    cheap += [f for f in sorted(glob.glob("seeds/*.cu")) if "naive" not in f]
    files = [cheap[i % len(cheap)] for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        gc_log, rec = os.path.join(tmp, "gc.log"), os.path.join(tmp, "many.json")
        # A small heap makes the collector run often, so live memory after GC can be followed over the run
        # (with the default heap there was one collection in 500 candidates); a leak would also end in an error.
        env = dict(os.environ, KEVO_JAVA_OPTS=f"-Xmx48m -Xlog:gc:file={gc_log}")
        t0 = time.monotonic()
        proc = subprocess.Popen([kevo, "eval", "--suite", "quick", "--json", rec, *files], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        rss = []
        while proc.poll() is None:
            try:
                for line in open(f"/proc/{proc.pid}/status"):
                    if line.startswith("VmRSS:"):
                        rss.append((round(time.monotonic() - t0, 1), round(int(line.split()[1]) / 1024, 1)))
            except OSError:
                pass
            time.sleep(0.5)
        wall = time.monotonic() - t0
        results = json.load(open(rec))["results"]
        after_gc = []
        for line in open(gc_log):
            m = re.search(r"\[([\d.]+)s\].*Pause.*?(\d+)M->(\d+)M\((\d+)M\)", line)
            if m:
                after_gc.append((float(m.group(1)), int(m.group(3)), int(m.group(4))))
    third = max(1, len(after_gc) // 3)
    memory = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": "python3 bench/memory.py " + " ".join(sys.argv[1:]),
        "candidates": len(results), "suite": "quick", "wallSeconds": round(wall, 1), "exitCode": proc.returncode,
        "verdicts": {v: sum(1 for r in results if r["verdict"] == v) for v in sorted({r["verdict"] for r in results})},
        "workerRestarts": sum(1 for r in results if r.get("workerStartMs")),
        "gcCount": len(after_gc),
        "liveHeapAfterGcMb": {"firstThirdMedian": statistics.median(h for _, h, _ in after_gc[:third]),
                              "lastThirdMedian": statistics.median(h for _, h, _ in after_gc[-third:]),
                              "max": max(h for _, h, _ in after_gc)} if after_gc else None,
        "afterGcSamples": after_gc[::max(1, len(after_gc) // 100)],
        "rssMb": {"max": max(m for _, m in rss), "last": rss[-1][1]},
        "rssSamples": rss[::max(1, len(rss) // 100)],
    }
    record = json.load(open(out)) if os.path.exists(out) else {}
    record["memory"] = memory
    json.dump(record, open(out, "w"), indent=2)
    print(json.dumps({k: memory[k] for k in ("candidates", "wallSeconds", "gcCount", "liveHeapAfterGcMb", "rssMb",
                                             "workerRestarts", "verdicts")}, indent=1))

if __name__ == "__main__":
    main()
