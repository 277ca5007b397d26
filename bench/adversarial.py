#!/usr/bin/env python3
"""Runs the adversarial corpus through one supervisor, a known-good seed before the corpus and after every
hostile file, and records per file: expected verdict, verdict, recovery time (the fresh worker's start, when
the hostile file cost the worker) and the good seed's time before and after. Writes OUT.json; prints a table.
A file whose header says `// @eval FLAGS` (as `// @eval --sanitize`) is judged with those flags, by one more
`kevo eval` per set of flags over copies of the files in a temporary folder (--sanitize writes a record beside
each file it judges), the good seed again before them and after each.
The supervisor's memory over many candidates is bench/memory.py's, written into the same OUT.json.
Usage (after `source tools/unpack.sh`): python3 bench/adversarial.py OUT.json && python3 bench/memory.py OUT.json
"""
import datetime, glob, json, math, os, re, shutil, subprocess, sys, tempfile, time

GOOD = "seeds/online.cu"

def expected(path):
    return re.search(r"^// @expect (\S+)", open(path).read(), re.M).group(1)

def expected_deterministic(path):
    """The file's `// @deterministic true|false` line, or None where it says nothing."""
    m = re.search(r"^// @deterministic (true|false)", open(path).read(), re.M)
    return None if m is None else m.group(1) == "true"

def eval_flags(path):
    """The flags a corpus file is judged with: its `// @eval` line, none by default."""
    m = re.search(r"^// @eval (.+)$", open(path).read(), re.M)
    return tuple(m.group(1).split()) if m else ()

def geo(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))

def rss_mb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None

def run_sampled(cmd):
    """Runs cmd, sampling its RSS every 0.5 s; returns (returncode, samples[(t, MB)])."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    samples, t0 = [], time.monotonic()
    while proc.poll() is None:
        mb = rss_mb(proc.pid)
        if mb is not None:
            samples.append((round(time.monotonic() - t0, 1), round(mb, 1)))
        time.sleep(0.5)
    err = proc.stderr.read()
    return proc.returncode, samples, err

def judge(kevo, files, flags, tmp):
    """One kevo eval over the files with flags, the good seed before them and after each: (command, rc, rss, record).
    With flags the files are copies in a folder of their own."""
    order = [GOOD]
    for f in files:
        order += [f, GOOD]
    if flags:
        folder = tempfile.mkdtemp(dir=tmp)
        copies = {f: shutil.copy(f, folder) for f in set(order)}
        order = [copies[f] for f in order]
    rec_path = os.path.join(tmp, "corpus-%d.json" % len(os.listdir(tmp)))
    cmd = [kevo, "eval", "--config", "bench/adversarial-eval.yaml", "--seed", "7", *flags, "--json", rec_path, *order]
    rc, rss, err = run_sampled(cmd)
    return cmd, rc, rss, json.load(open(rec_path))

def main():
    out = sys.argv[1]
    kevo = os.environ["KEVO"]
    corpus = sorted(glob.glob("evaluator/adversarial/*.cu"))
    groups = {}
    for f in corpus:
        groups.setdefault(eval_flags(f), []).append(f)
    rows, runs, corpus_rss, record = {}, [], None, None
    with tempfile.TemporaryDirectory() as tmp:
        for flags in sorted(groups):
            files = groups[flags]
            cmd, rc, rss, rec = judge(kevo, files, flags, tmp)
            runs.append({"flags": list(flags), "command": cmd[1:], "exitCode": rc})
            if not flags:
                corpus_rss, record = rss, rec
            results = rec["results"]
            before = results[0]
            for i, f in enumerate(files):
                hostile, good = results[1 + 2 * i], results[2 + 2 * i]
                ratio = [g["candidate"]["medianMs"] / b["candidate"]["medianMs"]
                         for g, b in zip(good.get("shapes", []), before["shapes"])] if good["verdict"] == "pass" else []
                rows[f] = {
                    "file": os.path.basename(f), "evalFlags": list(flags), "expected": expected(f),
                    "verdict": hostile["verdict"],
                    "expectedDeterministic": expected_deterministic(f), "deterministic": hostile.get("deterministic"),
                    "detail": hostile.get("detail"),
                    "sanitized": hostile.get("sanitized"),
                    "recoveryMs": good.get("workerStartMs") or hostile.get("workerStartMs"),
                    "goodSeedVerdictAfter": good["verdict"],
                    "goodSeedGeomeanTimeBeforeMs": geo([s["candidate"]["medianMs"] for s in before["shapes"]]),
                    "goodSeedGeomeanTimeAfterMs": geo([s["candidate"]["medianMs"] for s in good["shapes"]]) if ratio else None,
                    "goodSeedGeomeanChange": geo(ratio) - 1 if ratio else None,
                    "goodSeedWorstShapeChange": max(ratio, key=lambda r: abs(r - 1)) - 1 if ratio else None,
                }
    rows = [rows[f] for f in corpus]
    record = record or rec
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    result = {
        "what": "adversarial corpus through one supervisor; supervisor memory over many candidates",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": "python3 bench/adversarial.py " + " ".join(sys.argv[1:]),
        "kevoVersion": record["kevoVersion"], "commit": os.environ.get("KEVO_COMMIT", "unknown"),
        "device": record["device"], "nvidiaSmi": smi,
        "driver": smi.split(", ")[-1] if smi else None,
        "evalCommand": runs[0]["command"], "exitCode": runs[0]["exitCode"], "evalRuns": runs,
        "settings": record["settings"],
        "memory": json.load(open(out)).get("memory") if os.path.exists(out) else None,
        "allAsExpected": all(r["verdict"] == r["expected"] and r["expectedDeterministic"] in (None, r["deterministic"])
                             for r in rows),
        "goodSeedAlwaysPassed": all(r["goodSeedVerdictAfter"] == "pass" for r in rows),
        "corpus": rows,
        "corpusSupervisorRssMb": (corpus_rss or [])[::max(1, len(corpus_rss or []) // 100)],
    }
    json.dump(result, open(out, "w"), indent=2)
    print(f"{'file':28} {'expected':20} {'verdict':20} {'recovery ms':>11} {'good after':>10} {'time change':>11}")
    for r in rows:
        ch = r["goodSeedGeomeanChange"]
        print(f"{r['file']:28} {r['expected']:20} {r['verdict']:20} {r['recoveryMs'] or 0:11.0f} "
              f"{r['goodSeedVerdictAfter']:>10} {'' if ch is None else f'{100 * ch:+.1f}%':>11}")

if __name__ == "__main__":
    main()
