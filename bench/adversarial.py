#!/usr/bin/env python3
"""Runs the adversarial corpus through one supervisor, a known-good seed before the corpus and after every
hostile file, and records per file: expected verdict, verdict, recovery time (the fresh worker's start, when
the hostile file cost the worker) and the good seed's time before and after. Files that name kevo eval options in
a `// @eval` line (`--at-scale`, `--sanitize`) go through one more supervisor per set of options, run the same way;
with `--sanitize`, on copies in a temporary folder, since it records its outcome beside each file. Files of another
operator (their header's "op") go through one more per operator, judged as it on its suite against its own
baseline with its own known-good seed (OTHER_OPERATORS; src/test/java/dev/kevo/cli/Corpus.java holds the same).
Writes OUT.json; prints a table.
The supervisor's memory over many candidates is bench/memory.py's, written into the same OUT.json.
Usage (after `source tools/unpack.sh`): python3 bench/adversarial.py OUT.json && python3 bench/memory.py OUT.json
(CORPUS='ce_*.cu' python3 bench/adversarial.py OUT.json: only the files of that glob)
"""
import datetime, glob, json, math, os, re, shutil, subprocess, sys, tempfile, time

GOOD = "seeds/online.cu"
# operator: (kevo eval options that judge it, its known-good seed); softmax is judged as the eval config says.
OTHER_OPERATORS = {
    "masked_softmax": (("--op", "masked_softmax", "--suite", "attention", "--baseline", "masked_softmax_two_pass"),
                       "seeds/masked_softmax/online.cu"),
    "softmax_backward": (("--op", "softmax_backward", "--suite", "standard", "--baseline", "softmax_backward_block"),
                         "seeds/softmax_backward/block_dot.cu"),
    "log_softmax_backward": (("--op", "log_softmax_backward", "--suite", "standard", "--baseline",
                              "log_softmax_backward_block"), "seeds/log_softmax_backward/block_dot.cu"),
    "cross_entropy": (("--op", "cross_entropy", "--suite", "standard", "--baseline", "cross_entropy_two_pass"),
                      "seeds/cross_entropy/online.cu"),
}

def operator(path):
    """The operator the file's header names ("op"), softmax where it names none."""
    text = open(path).read()
    m = re.search(r'"op"\s*:\s*"(\w+)"', text[:text.find("*/")])
    return m.group(1) if m else "softmax"

def expected(path):
    return re.search(r"^// @expect (\S+)", open(path).read(), re.M).group(1)

def expected_deterministic(path):
    """The file's `// @deterministic true|false` line, or None where it says nothing."""
    m = re.search(r"^// @deterministic (true|false)", open(path).read(), re.M)
    return None if m is None else m.group(1) == "true"

def options(path):
    """The kevo eval options the file's `// @eval` line asks for; none without one."""
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

def run_group(kevo, tmp, corpus, extra, good=GOOD):
    """One kevo eval of the good seed, then each file of corpus followed by the good seed again, with options extra."""
    files = [good]
    for f in corpus:
        files += [f, good]
    if "--sanitize" in extra:
        folder = tempfile.mkdtemp(dir=tmp)
        copies = {f: shutil.copy(f, folder) for f in set(files)}
        files = [copies[f] for f in files]
    rec_path = os.path.join(tmp, "corpus" + "".join(extra) + ".json")
    cmd = [kevo, "eval", "--config", "bench/adversarial-eval.yaml", "--seed", "7", *extra, "--json", rec_path, *files]
    rc, rss, err = run_sampled(cmd)
    return cmd, rc, rss, json.load(open(rec_path))

def main():
    out = sys.argv[1]
    kevo = os.environ["KEVO"]
    groups = {}
    # CORPUS (a glob under evaluator/adversarial/, default every file): a part of the corpus, e.g. one operator's files
    for f in sorted(glob.glob("evaluator/adversarial/" + os.environ.get("CORPUS", "*.cu"))):
        op = operator(f)
        judged, good = OTHER_OPERATORS.get(op, ((), GOOD))
        groups.setdefault((op != "softmax", judged + options(f), good), []).append(f)
    with tempfile.TemporaryDirectory() as tmp:
        # Plain softmax files first: that run's supervisor memory is the record's, as it was before files had options.
        runs = [(extra, group, *run_group(kevo, tmp, group, extra, good))
                for (_, extra, good), group in sorted(groups.items())]
    cmd, rc, corpus_rss, record = runs[0][2:]
    rows = []
    for extra, corpus, _, _, _, group_record in runs:
        results = group_record["results"]
        before = results[0]
        for i, f in enumerate(corpus):
            rows.append(row(f, extra, before, results[1 + 2 * i], results[2 + 2 * i]))
    rows.sort(key=lambda r: r["file"])
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip()
    result = {
        "what": "adversarial corpus through one supervisor (one more per set of // @eval options); supervisor "
                "memory over many candidates",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
        "command": "python3 bench/adversarial.py " + " ".join(sys.argv[1:]),
        "kevoVersion": record["kevoVersion"], "commit": os.environ.get("KEVO_COMMIT", "unknown"),
        "device": record["device"], "nvidiaSmi": smi,
        "driver": smi.split(", ")[-1] if smi else None,
        "evalCommand": cmd[1:], "exitCode": rc, "settings": record["settings"],
        "evalCommandsWithOptions": [{"command": r[2][1:], "exitCode": r[3]} for r in runs[1:]],
        "memory": json.load(open(out)).get("memory") if os.path.exists(out) else None,
        "allAsExpected": all(r["verdict"] == r["expected"] and r["expectedDeterministic"] in (None, r["deterministic"])
                             for r in rows),
        "goodSeedAlwaysPassed": all(r["goodSeedVerdictAfter"] == "pass" for r in rows),
        "corpus": rows, "corpusSupervisorRssMb": corpus_rss[::max(1, len(corpus_rss) // 100)],
    }
    json.dump(result, open(out, "w"), indent=2)
    print(f"{'file':28} {'expected':20} {'verdict':20} {'recovery ms':>11} {'good after':>10} {'time change':>11}")
    for r in rows:
        ch = r["goodSeedGeomeanChange"]
        print(f"{r['file']:28} {r['expected']:20} {r['verdict']:20} {r['recoveryMs'] or 0:11.0f} "
              f"{r['goodSeedVerdictAfter']:>10} {'' if ch is None else f'{100 * ch:+.1f}%':>11}")

def row(f, extra, before, hostile, good):
    """One file's line of the record: its verdict, and the good seed judged right after it against before."""
    ratio = [g["candidate"]["medianMs"] / b["candidate"]["medianMs"]
             for g, b in zip(good.get("shapes", []), before["shapes"])] if good["verdict"] == "pass" else []
    return {
        "file": os.path.basename(f), "expected": expected(f), "evalOptions": list(extra),
        "verdict": hostile["verdict"],
        "expectedDeterministic": expected_deterministic(f), "deterministic": hostile.get("deterministic"),
        "detail": hostile.get("detail"), "sanitized": hostile.get("sanitized"),
        "recoveryMs": good.get("workerStartMs") or hostile.get("workerStartMs"),
        "goodSeedVerdictAfter": good["verdict"],
        "goodSeedGeomeanTimeBeforeMs": geo([s["candidate"]["medianMs"] for s in before["shapes"]]),
        "goodSeedGeomeanTimeAfterMs": geo([s["candidate"]["medianMs"] for s in good["shapes"]]) if ratio else None,
        "goodSeedGeomeanChange": geo(ratio) - 1 if ratio else None,
        "goodSeedWorstShapeChange": max(ratio, key=lambda r: abs(r - 1)) - 1 if ratio else None,
    }

if __name__ == "__main__":
    main()
