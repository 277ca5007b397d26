#!/usr/bin/env bash
# Kevo's workers as Slurm steps on a GPU host that has no Slurm and no network: Debian's slurm and munge
# packages, carried in .slurm-debs/ (bench/slurm-debs.sh fetches them), are unpacked with dpkg -x into a prefix
# outside / and run from there as a one-node cluster whose node offers its GPUs as gres. Then the same 2-minute
# default campaign (bench/slurm.yaml) runs twice: workers as srun steps (sbatch bench/slurm-campaign.sbatch, the
# docs/cluster.md's script) and local workers; evaluations per minute of both, target: within 10%. Then kevo reeval of
# the Slurm campaign's champion, again through an srun step.
#
# Usage, from the repository root, with the bundle carried (target/kevo-*-linux-x86_64.tar.gz) and .slurm-debs:
#   bash bench/slurm-gpu.sh            results under $OUT (default /tmp/kevo-slurm-out)
# KEVO_SLURM_ORDER=local-first runs the local campaign first (alternate the order over runs, so that drift hits both
# alike); KEVO_SLURM_REEVAL=0 skips the reeval.
# Without a GPU (KEVO_SLURM_GPUS=1 KEVO_SLURM_GPU_FILES=<stand-ins>) it stops after the srun smoke test: that is
# how the unpack-outside-/ part was tried on a CPU machine.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kevo-slurm-out}
mkdir -p "$OUT"
root=${KEVO_SLURM_ROOT:-/tmp/slurm-root}
debs=${KEVO_SLURM_DEBS:-.slurm-debs}
log=$OUT/slurm-gpu.log
exec > >(tee "$log") 2>&1

say() { echo "slurm-gpu: $*"; }
fail() { echo "slurm-gpu: FAILED: $*" >&2; exit 1; }

# 1. Unpack, outside /. Nothing is installed: the packages' files land under $root/usr/...
ls "$debs"/*.deb >/dev/null 2>&1 || fail "no .deb files in $debs (carry it; bench/slurm-debs.sh fetches them)"
command -v dpkg-deb >/dev/null || fail "no dpkg-deb on this host to unpack the packages"
rm -rf "$root" && mkdir -p "$root"
for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$root"; done
lib=$root/usr/lib/x86_64-linux-gnu
# Only the libraries this host lacks go on the library path, so the host's own (CUDA's neighbours) stay first.
mkdir -p "$root/extra-libs"
have=$({ command -v ldconfig >/dev/null && ldconfig -p; } || /sbin/ldconfig -p)
# Some packages (libdbus-1-3, which slurmd's cgroup/v2 plugin needs) still ship under /lib, not /usr/lib.
for f in "$lib"/*.so.* "$root"/lib/x86_64-linux-gnu/*.so.*; do
  [[ -e $f ]] || continue
  name=$(basename "$f")
  if ! grep -q "^[[:space:]]*$name " <<< "$have"; then ln -sf "$f" "$root/extra-libs/$name"; fi
done
export KEVO_SLURM_PREFIX=$root KEVO_SLURM_DIR=$root/state KEVO_SLURM_LIBS=$root/extra-libs:$lib/slurm-wlm
missing=""
for b in usr/sbin/slurmctld-wlm usr/sbin/slurmd-wlm usr/sbin/slurmstepd-wlm usr/bin/srun usr/bin/sbatch usr/sbin/munged \
         usr/lib/x86_64-linux-gnu/slurm-wlm/auth_munge.so usr/lib/x86_64-linux-gnu/slurm-wlm/select_cons_tres.so \
         usr/lib/x86_64-linux-gnu/slurm-wlm/cgroup_v2.so; do
  m=$(LD_LIBRARY_PATH=$KEVO_SLURM_LIBS ldd "$root/$b" 2>&1 | grep "not found" || true)
  [[ -z $m ]] || missing+="$b: $m"$'\n'
done
[[ -z $missing ]] || fail "libraries the carried packages need and this host lacks:"$'\n'"$missing"
say "unpacked $(ls "$debs"/*.deb | wc -l) packages into $root ($(du -sh "$root" | cut -f1)); extra libraries: $(ls "$root/extra-libs" | tr '\n' ' ')"

# 2. The cluster: one node, its GPUs as gres gpu.
if [[ -z ${KEVO_SLURM_GPUS:-} ]]; then
  KEVO_SLURM_GPUS=$(ls /dev/nvidia[0-9]* 2>/dev/null | wc -l)
fi
export KEVO_SLURM_GPUS KEVO_SLURM_CPUS=${KEVO_SLURM_CPUS:-$(nproc)}
(( KEVO_SLURM_GPUS > 0 )) || fail "no /dev/nvidia<N> on this host"
trap 'tools/slurm-local.sh stop || true' EXIT
tools/slurm-local.sh start || fail "the cluster did not come up (logs: $root/state/*.log)"
eval "$(tools/slurm-local.sh env)"
say "srun is $(command -v srun) ($(srun --version))"
smoke=$(timeout 120 srun --nodes=1 --ntasks=1 --gres=gpu:1 --exact \
  bash -c 'echo "node=$SLURMD_NODENAME gpu=$CUDA_VISIBLE_DEVICES step=$SLURM_JOB_ID.$SLURM_STEP_ID"' 2>&1) \
  || fail "an srun step holding a GPU did not run: $smoke"
say "a step holding one GPU: $smoke"

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi >/dev/null 2>&1; then
  say "no working nvidia-smi: the campaigns are skipped (CPU try-out of the unpack and the cluster only)"
  exit 0
fi

# 3. The same campaign twice: workers as Slurm steps (the sbatch script of docs/cluster.md), and local workers.
source tools/unpack.sh
export KEVO
gpus=$KEVO_SLURM_GPUS
devices=$(seq -s, 0 $(( gpus - 1 )))
slurm_campaign() {
  say "campaign with $gpus worker step(s) through sbatch"
  sbatch --wait --gpus-per-node="$gpus" --cpus-per-task=$(( KEVO_SLURM_CPUS / 2 )) \
    --output="$OUT/slurm-campaign.txt" bench/slurm-campaign.sbatch --config bench/slurm.yaml --lines \
    || say "the sbatch campaign failed (exit $?)"
}
local_campaign() {
  say "the same campaign with local workers"
  "$KEVO" evolve --config bench/slurm.yaml --devices "$devices" --lines > "$OUT/local-campaign.txt" 2>&1 \
    || say "the local campaign failed (exit $?)"
}
# A fresh host's first kevo run fills kevo's cache and the page cache (26 against 31 evaluations a minute, measured):
# one evaluation first, so that neither campaign pays for it.
say "warm-up: kevo eval seeds/online.cu"
"$KEVO" eval seeds/online.cu > "$OUT/warm-up.txt" 2>&1 || say "the warm-up failed (exit $?)"
order=${KEVO_SLURM_ORDER:-slurm-first}
if [[ $order == local-first ]]; then local_campaign; slurm_campaign; else slurm_campaign; local_campaign; fi
folder() { sed -n 's/^campaign //p' "$1" 2>/dev/null | head -1; }
slurm_dir=$(folder "$OUT/slurm-campaign.txt")
if [[ -n $slurm_dir ]]; then
  champion=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]+"/champion.json"))["id"])' "$slurm_dir" \
    2>/dev/null || true)
  if [[ -n $champion && ${KEVO_SLURM_REEVAL:-1} != 0 ]]; then
    timeout 300 salloc --gpus-per-node=1 "$KEVO" reeval "$slurm_dir" --id "$champion" --workers slurm \
      > "$OUT/slurm-reeval.txt" 2>&1 || true
  fi
fi

python3 - "$OUT" "$slurm_dir" "$(folder "$OUT/local-campaign.txt")" "$order" <<'PY'
import collections, datetime, json, os, subprocess, sys
out, slurm_dir, local_dir, order = sys.argv[1:5]

def summary(folder):
    if not folder or not os.path.exists(os.path.join(folder, "state.json")):
        return None
    state = json.load(open(os.path.join(folder, "state.json")))
    records = [json.load(open(os.path.join(folder, f))) for f in os.listdir(folder) if f.endswith(".json")
               and f not in ("state.json", "champion.json", "confirmation.json", "campaign.json")]
    judged = [r for r in records if isinstance(r, dict) and "result" in r and r.get("cachedFrom") is None]
    devices = collections.Counter(r["result"].get("device") or "?" for r in judged)
    champion = json.load(open(os.path.join(folder, "champion.json")))
    minutes = state["elapsedMillis"] / 60000
    # What the candidates themselves cost differs between two runs of one campaign (their paths part after a few
    # generations); the GPUs' busy share does not depend on that: the rest is the campaign's and the transport's.
    worker_s = sum((r["result"].get("evaluationMs") or 0) for r in judged) / 1000
    gpus = max(1, len(devices))
    return {"folder": folder, "evaluations": state["evaluations"], "minutes": round(minutes, 2),
            "evaluationsPerMinute": round(state["evaluations"] / minutes, 2),
            "meanEvaluationSeconds": round(worker_s / max(1, len(judged)), 3),
            "gpuBusyShare": round(worker_s / (minutes * 60 * gpus), 3), "judgedByDevice": dict(devices),
            "verdicts": dict(collections.Counter(r["result"]["verdict"] for r in judged)),
            "champion": {"id": champion["id"], "score": champion["result"]["score"],
                         "device": champion["result"].get("device")}}

s, l = summary(slurm_dir), summary(local_dir)
ratio = s["evaluationsPerMinute"] / l["evaluationsPerMinute"] if s and l else None
reeval = os.path.join(out, "slurm-reeval.txt")
record = {"what": "the 2-minute default campaign with workers as Slurm steps and with local workers",
          "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
          "command": f"KEVO_SLURM_ORDER={order} bash bench/slurm-gpu.sh", "commit": os.environ.get("KEVO_COMMIT"),
          "order": order, "framesOverSrun": os.environ.get("KEVO_SRUN_FRAMES", "socket"),
          "nvidiaSmi": subprocess.run(["nvidia-smi", "--query-gpu=index,name,driver_version", "--format=csv,noheader"],
                                      capture_output=True, text=True).stdout.strip(),
          "slurm": s, "local": l, "slurmOverLocal": ratio, "target": "within 10% (0.90 to 1.10)",
          "reevalThroughSrun": open(reeval).read() if os.path.exists(reeval) else None}
json.dump(record, open(os.path.join(out, "slurm-gpu.json"), "w"), indent=2)
print()
print(f"{'workers':10} {'evaluations':>12} {'minutes':>8} {'eval/min':>9} {'s/eval':>7} {'busy':>5}  judged on")
for name, r in (("slurm", s), ("local", l)):
    if r:
        print(f"{name:10} {r['evaluations']:>12} {r['minutes']:>8} {r['evaluationsPerMinute']:>9} "
              f"{r['meanEvaluationSeconds']:>7} {r['gpuBusyShare']:>5}  {r['judgedByDevice']}")
    else:
        print(f"{name:10} {'FAILED':>12}  (see {out})")
print(f"slurm / local: {ratio:.3f}  (target 0.90 to 1.10)" if ratio else "slurm / local: n/a")
PY
