#!/usr/bin/env bash
# Issue 42 on the GPU host, in the order its open items need the GPU: each step fits one 10-minute device command and
# leaves everything it wrote in $OUT/forward-STEP.tgz. Run from the repository root with the bundle
# (target/kevo-*-linux-x86_64.tar.gz) and, for `tests`, target/gpu-tests.tgz carried; KEVO_COMMIT names the commit.
#   tests [GROUP...]   the GPU tests the families added or touched (the shared harness and evaluator changed for
#              masked_softmax and the backward operators), by group, all three in this order by default: masked
#              (MaskedSoftmaxGpuTest), backward (BackwardGpuTest), regression (TrustedKernels, LogSoftmax,
#              AddedOperator, Evaluator, CheckLaunchTime, Adversarial, Sanitizer); and loss (CrossEntropyGpuTest and
#              the harness's compile test) and cluster (ClusterGpuTest, LogSoftmaxGpuTest, MaskedSoftmaxGpuTest), named only
#   check      each operator's exported torch op against torch (bench/export-torch.sh with OP=masked_softmax, softmax,
#              log_softmax: their recorded fp32 champions), and the scripted-model campaigns of log_softmax and
#              masked_softmax (bench/llm-step.sh: prompts distinct, answers judged)
#   exports DTYPE   log_softmax's and masked_softmax's recorded champions in DTYPE exported and checked against torch
#   campaign OP DTYPE   one default-length campaign of OP (log_softmax, masked_softmax, softmax_backward,
#              log_softmax_backward: config/OP.yaml) in DTYPE (fp32, bf16), with
#              its champion's record, progress, show, lineage and costs (bench/campaign_costs.py); cut by the slot,
#              its folder for campaign-resume; COMPILERS=N sets kevo evolve --compilers
#   campaign-resume CAMPAIGN_FOLDER_TGZ   finishes a cut campaign (kevo evolve --resume) and records it
#   family CHAMPION_FP32 CHAMPION_BF16   bench/family.py: log_softmax's champions beside softmax's recorded ones,
#              torch and Triton, standard and llm suites, fp32 and bf16
#   family-masked [K32 [K16]]   bench/family.py on the attention suite, every mask kind, K32 in fp32 and K16 in bf16
#              (default seeds/masked_softmax/online.cu for both; each dtype's campaign champion once there are some)
#   family-masked-pairs A32 B32 A16 B16   the same, two kernels a dtype side by side (before and after a change)
#   decode-probes   bench/family.py on probes/decode.yaml: the masked champions and one-gene variants on their weak rows
#   probes     bench/family.py: the bf16 log_softmax champion and its cluster probes on the llm suite
#   calibrate OP...   bench/calibrate_dtypes.py --op OP for each OP (softmax_backward, log_softmax_backward, cross_entropy, ...)
#   backward-probes   bench/family.py on probes/backward-long.yaml: the backward genome with a larger cluster share
#   backward-cli     kevo eval of the backward operators' seeds (fp32, bf16) and a short campaign of each, by the CLI
#   backward-heldout   softmax_backward's held_rows seed on probes/backward-heldout.yaml (call 12's held-out shapes)
#   export-backward OP [DTYPE]   bench/export-torch.sh for softmax_backward or log_softmax_backward
#   llm-backward     the scripted-model campaign of softmax_backward (bench/llm-step.sh)
#   llm-loss         the scripted-model campaign of cross_entropy (bench/llm-step.sh)
#   export-training OP [DTYPE]   bench/export-training.sh for softmax or log_softmax with its gradient
#   family-backward [SB LSB]   bench/family.py on the llm suite, fp32 and bf16, for the backward operators (issue 43;
#              default their block_dot seeds)
#   family-backward-champions SB32 LSB32 SB16 LSB16   the same with a champion file a dtype (campaign champions)
#   loss-cli [OP]    kevo eval of OP's (default cross_entropy; cross_entropy_sum) seeds and own baseline (fp32 and
#              bf16, standard suite; the seeds on the llm suite too), each with its record
#   loss-scale [K]   kevo eval --at-scale --sanitize of cross_entropy's K (default its held_rows seed), fp32 and bf16:
#              the held-out shapes, the plain buffers of champion confirmation and compute-sanitizer on the loss
#   export-loss [K]  cross_entropy's K (default its held_rows seed) judged under compute-sanitizer, exported with
#              --to cpp, and its example.cu built and run on LM-head shapes
#   export-loss-torch [K [DTYPE]]  bench/export-torch.sh with OP=cross_entropy: K (default its held_rows seed) in DTYPE
#              (default fp32) as C++ and as the torch package, whose example.py checks the op and the loss function
#              with its backward against F.cross_entropy and its gradient
#   family-loss [K32 [K16]]  bench/family.py on the llm suite, cross_entropy's K32 in fp32 and K16 in bf16 (default
#              its held_rows seed; K16 defaults to K32) beside torch's F.cross_entropy + backward and a Triton kernel;
#              ROUNDS (default 20) rounds
#   loss-eval K32 [K16]   kevo eval --at-scale of cross_entropy's K32 in fp32 and K16 in bf16 on the llm suite
#              (OP=cross_entropy_sum for the sum's)
#   family-loss-sum [K32 [K16]]   family-loss for cross_entropy_sum (default its held_rows seed) beside torch's sum
#   adversarial [GLOB]   the adversarial corpus (the files of GLOB under evaluator/adversarial/, default all) through
#              one supervisor (bench/adversarial.py) and its table
#   family-jobs NAME JOB...   bench/family.py on the given jobs (OP:DTYPE:KERNEL:SUITE), its record NAME.json
#   ncu OP DTYPE K SHAPE [REGEX]   Nsight Compute on K's plan at one suite shape (bench/plan_runs.py; a masked one
#              with its kind, as 4x32x16x32768:additive), the kernels whose name matches REGEX (default all): speed
#              of light, occupancy, warp stalls, memory and the SASS with its stall counters, as a report, its
#              details page and a CSV of the source page
#   family-backward-all   the same for every backward kernel: both seeds of each operator and the genome's rendering
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
step=${1:?usage: bench/forward-family-h100.sh tests|check|campaign OP DTYPE|campaign-resume TGZ|family C32 C16|family-masked [K32 [K16]]|family-backward [SB LSB]}
# Steps may run side by side, one per GPU (CUDA_VISIBLE_DEVICES): each gets its own folder and its own unpacked bundle.
tag=forward-$step${2:+-$2}${3:+-$3}; [[ $step == ncu ]] && tag+=-$(basename "${4:-}" .cu)-${5:-}
[[ $step == family-jobs ]] && tag=forward-$step-${2:-}; tag=${tag//\//_}; tag=${tag//:/-}
out=/tmp/$tag; rm -rf "$out"; mkdir -p "$out"
trap 'tar czf "${OUT:-.}/$tag.tgz" -C /tmp "$tag"' EXIT
export KEVO_UNPACK=${KEVO_UNPACK:-/tmp/kevo-bundle-$tag}
source tools/unpack.sh
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  echo "kevo $($KEVO --version), commit ${KEVO_COMMIT:-unknown}, $(date -u +%FT%TZ), step: $*"; } | tee "$out/gpu.txt"
# A long step's own limit: 560 s, or less where tools/parallel-steps.sh gave the step less (KEVO_STEP_SECONDS), so that
# the step's wrapper, not the outer deadline, cuts a campaign and keeps its folder.
step_limit=$(( ${KEVO_STEP_SECONDS:-575} - 15 )); (( step_limit > 560 )) && step_limit=560
# bench/family.py on JOBS (op:dtype:kernel:suite), its record and log NAME.json and NAME.txt in the step's folder.
family_bench() {
  local name=$1 jobs=() job; shift
  for job in "$@"; do jobs+=(--job "$job"); done
  timeout 560 python3 bench/family.py --out "$out/$name.json" "${jobs[@]}" > "$out/$name.txt" 2>&1
  echo "family exit $?"; grep -E '^\{' "$out/$name.txt" | cut -c1-220
}

# export_champion OP DTYPE DEADLINE: bench/export-torch.sh on OP's recorded campaign champion in DTYPE (empty: the
# champion's own, fp32; softmax: export-torch.sh's default, its recorded champion), ended by DEADLINE seconds into the
# step; its record and log export-OP[-DTYPE] in the step's folder.
export_champion() {
  local op=$1 dtype=$2 deadline=$3 name=export-$1${2:+-$2} own=${2:-fp32} champion=""
  [[ $op != softmax ]] && champion=bench/results/forward-family-h100/campaign-$op-$own/champion-$op-$own-h100.cu
  OP=$op DTYPE=$dtype CHAMPION=$champion OUT="$out/$name" timeout $((deadline - SECONDS)) bash bench/export-torch.sh \
    > "$out/$name.txt" 2>&1
  echo "export $op${dtype:+ $dtype} exit $?"; tail -6 "$out/$name.txt"
}

# GPU tests by group, each's log GROUP.txt in the step's folder with its summary and failures echoed.
gpu_tests() {
  local group=$1 pattern
  case "$group" in
  masked) pattern='.*MaskedSoftmaxGpuTest' ;;
  backward) pattern='.*BackwardGpuTest' ;;
  cluster) pattern='.*(Cluster|LogSoftmax|MaskedSoftmax)GpuTest' ;;
  loss) pattern='.*CrossEntropy.*Test' ;;
  regression) pattern='.*(TrustedKernels|LogSoftmax|AddedOperator|Evaluator|CheckLaunchTime|Adversarial|Sanitizer)GpuTest' ;;
  *) echo "forward-family-h100.sh: unknown test group '$group'" >&2; return 2 ;;
  esac
  bash tools/gpu-tests.sh --details=tree --include-classname "$pattern" > "$out/$group.txt" 2>&1
  local rc=$?
  grep -A14 "Test run finished" "$out/$group.txt"; grep -B2 -A12 "Failures (" "$out/$group.txt" | head -40
  return $rc  # the tests' status, not the last grep's (no failures to show read as exit 1)
}

case "$step" in
tests)
  # tests [GROUP...]: masked, backward, regression (the default: all three, in that order), loss
  shift; rc=0
  for group in "${@:-masked backward regression}"; do for g in $group; do gpu_tests "$g" || rc=1; done; done
  exit $rc ;;
check)
  # The torch binding is one template for every operator: each operator's export, checked against torch; for
  # log_softmax and masked_softmax their recorded fp32 campaign champions (issue 42 asks for the champions' exports),
  # for softmax its recorded champion (export-torch.sh's default).
  for op in masked_softmax softmax log_softmax; do export_champion "$op" "" 400; done
  CONFIG=bench/llm-step-log_softmax.yaml ANSWERS=bench/llm-answers-log_softmax OUT="$out/llm" timeout $((510 - SECONDS)) \
    bash bench/llm-step.sh > "$out/llm.txt" 2>&1
  echo "scripted campaign exit $?"; tail -3 "$out/llm.txt"
  CONFIG=bench/llm-step-masked_softmax.yaml ANSWERS=bench/llm-answers-masked_softmax OUT="$out/llm-masked" \
    timeout $((585 - SECONDS)) bash bench/llm-step.sh > "$out/llm-masked.txt" 2>&1
  echo "scripted masked campaign exit $?"; tail -3 "$out/llm-masked.txt" ;;
exports)
  # exports DTYPE: log_softmax's and masked_softmax's recorded campaign champions in DTYPE (fp32, bf16) exported and
  # checked against torch (bench/export-torch.sh), without check's scripted campaigns.
  dtype=${2:?DTYPE}
  for op in masked_softmax log_softmax; do export_champion "$op" "$dtype" 540; done ;;
campaign)
  op=${2:?OP}; dtype=${3:?DTYPE}
  sed -e "s/^name: $op/name: $op-$dtype/" "config/$op.yaml" > "$out/campaign.yaml"
  echo "dtype: $dtype" >> "$out/campaign.yaml"
  # COMPILERS=N: compiling workers per GPU (kevo evolve --compilers; docs/campaigns.md#compilers).
  timeout $step_limit python3 bench/campaign.py "$out/c" --config "$out/campaign.yaml" \
    ${COMPILERS:+--compilers "$COMPILERS"} > "$out/campaign.txt" 2>&1
  rc=$?; echo "campaign exit $rc"; tail -3 "$out/c/campaign-progress.txt"
  # Where the wall time went (the GPU worker's share against compiling and the rest), whatever the exit.
  costs_folder=$(ls -dt mutations/$op-$dtype-* 2>/dev/null | head -1)
  [[ -n $costs_folder ]] && python3 bench/campaign_costs.py "$costs_folder" "$out/campaign-costs.json" > /dev/null 2>&1
  rm -f "$out/c/campaign-folder.tar.gz"
  if [[ $rc -ne 0 ]]; then
    # Cut by the slot (a masked campaign's last generation and its champion's confirmation can outrun it): keep the
    # folder, compiled files left out, for `campaign-resume` in the next call; a kill loses at most one evaluation.
    # A campaign that had ended (its champion confirmed) when the wrapper was cut still gets its show and lineage,
    # which read the folder and need no GPU: call 8's bf16 campaign ended with 8 s left and had neither.
    folder=$(ls -dt mutations/$op-$dtype-* 2>/dev/null | head -1)
    if [[ -n $folder ]]; then
      # Beside the step's archive, not in it: a folder of hundreds of mutants outgrows what a device call brings
      # back, and tools/parallel-steps.sh brings it back only where it fits.
      tar czf "${OUT:-$out}/campaign-folder-$op-$dtype.tgz" --exclude='*.cubin' "$folder" \
        && echo "kept $folder for campaign-resume"
      if [[ -f $folder/confirmation.json ]]; then
        "$KEVO" show "$folder" > "$out/c/campaign-show.txt" 2>&1
        "$KEVO" lineage "$folder" > "$out/c/campaign-lineage.txt" 2>&1
        cp "$folder/champion.cu" "$folder/champion.json" "$out/c/" 2>/dev/null
      fi
    fi
  fi ;;
campaign-resume)
  # The folder a cut campaign step kept (its campaign-folder-OP-DTYPE.tgz carried back to the repository root):
  # finished with kevo evolve --resume, then recorded as a campaign step records it.
  archive=${2:?CAMPAIGN_FOLDER_TGZ}
  folder=$(tar tzf "$archive" | head -1 | cut -d/ -f1-2); tar xzf "$archive"
  timeout $step_limit "$KEVO" evolve --resume "$folder" --lines > "$out/resume.txt" 2>&1
  echo "resume exit $?"; tail -3 "$out/resume.txt"
  "$KEVO" show "$folder" > "$out/show.txt" 2>&1; "$KEVO" lineage "$folder" > "$out/lineage.txt" 2>&1
  cp "$folder/champion.cu" "$folder/champion.json" "$out/" 2>/dev/null ;;
family)
  c32=${2:?CHAMPION_FP32}; c16=${3:?CHAMPION_BF16}
  s32=bench/results/campaign-fp32-h100/champion-fp32-h100.cu; s16=bench/results/campaign-bf16-h100/champion-bf16-h100.cu
  family_bench family-h100 "log_softmax:fp32:$c32:standard" "softmax:fp32:$s32:standard" \
    "log_softmax:fp32:$c32:llm" "softmax:fp32:$s32:llm" "log_softmax:bf16:$c16:standard" \
    "softmax:bf16:$s16:standard" "log_softmax:bf16:$c16:llm" "softmax:bf16:$s16:llm" ;;
family-masked)
  # A rendered genome implements one dtype: a campaign's champions come one a dtype; the seed implements both.
  m32=${2:-seeds/masked_softmax/online.cu}; m16=${3:-$m32}
  family_bench family-masked-h100 "masked_softmax:fp32:$m32:attention" "masked_softmax:bf16:$m16:attention" ;;
family-masked-pairs)
  # Kernels before and after a change, side by side in one run: family-masked-pairs A32 B32 A16 B16.
  family_bench family-masked-pairs-h100 "masked_softmax:fp32:${2:?A32}:attention" \
    "masked_softmax:fp32:${3:?B32}:attention" "masked_softmax:bf16:${4:?A16}:attention" "masked_softmax:bf16:${5:?B16}:attention" ;;
decode-probes)
  # The masked champions' weak rows (probes/decode.yaml): each champion's file, its genome after the prologue change,
  # and one-gene variants (block.elems, no split regime), beside softmax's champions on the same rows unmasked.
  p=bench/results/forward-family-h100 jobs=()
  for d in fp32 bf16; do
    jobs+=("masked_softmax:$d:$p/campaign-masked_softmax-$d/champion-masked_softmax-$d-h100.cu:$p/probes/decode.yaml")
    for v in champion-$d-scores champion-$d-before-idx champion-$d-idx32 $d-block-e8 $d-block-e16 $d-block-e32 \
             $d-no-split $d-cluster-s0; do
      [[ -f $p/probes/masked-$v.cu ]] && jobs+=("masked_softmax:$d:$p/probes/masked-$v.cu:$p/probes/decode.yaml")
    done
    jobs+=("softmax:$d:bench/results/campaign-$d-h100/champion-$d-h100.cu:$p/probes/decode-plain.yaml")
  done
  # where the masked kernels' extra microsecond at 4096 keys goes: the prologue's division, or its mask arithmetic
  jobs+=("masked_softmax:fp32:$p/probes/masked-fp32-div32.cu:$p/probes/decode.yaml"
         "masked_softmax:fp32:$p/probes/masked-fp32-nomask.cu:$p/probes/decode-none.yaml")
  family_bench decode-probes-h100 "${jobs[@]}" ;;
probes)
  # The bf16 log_softmax gap (bench/results/forward-family-h100/probes/README.md): its champion beside the same genome
  # with cp.async groups of 2 and with blocks holding longer shares (11 or 13 shared vectors a thread), on the llm
  # suite, where its clustered LM-head shapes are under 0.90.
  p=bench/results/forward-family-h100
  family_bench probes-h100 "log_softmax:bf16:$p/campaign-log_softmax-bf16/champion-log_softmax-bf16-h100.cu:llm" \
    "log_softmax:bf16:$p/probes/log_softmax-bf16-champion-g2.cu:llm" \
    "log_softmax:bf16:$p/probes/log_softmax-bf16-champion-s11-g2.cu:llm" \
    "log_softmax:bf16:$p/probes/log_softmax-bf16-champion-s13-g2.cu:llm" \
    "log_softmax:bf16:$p/probes/log_softmax-bf16-champion-s13-g0.cu:llm" ;;
calibrate)
  # calibrate OP...: torch's backward ops against kevo's tolerance for them (bench/calibrate_dtypes.py), what lifting
  # the CLI's refusal of the backward operators waits for (Task.notJudgedYet).
  shift; for op in "$@"; do
    timeout 240 python3 bench/calibrate_dtypes.py "$out/calibration-$op.json" --op "$op" > "$out/calibration-$op.txt" 2>&1
    echo "calibrate $op exit $?"; tail -12 "$out/calibration-$op.txt"
  done ;;
backward-probes)
  # The backward rows past the default cluster (probes/backward-long.yaml): the default genome, its cluster share
  # raised (-s14: cluster.smemVecs 14; -t1024-s14: and 1024 threads a block), and the held_rows seeds.
  p=bench/results/forward-family-h100/probes jobs=()
  for op in softmax_backward log_softmax_backward; do
    for v in fp32 fp32-s14 fp32-t1024-s14 bf16 bf16-s14; do
      jobs+=("$op:${v%%-*}:$p/genome-$op-$v.cu:$p/backward-long.yaml")
    done
    jobs+=("$op:fp32:seeds/$op/held_rows.cu:$p/backward-long.yaml" "$op:bf16:seeds/$op/held_rows.cu:$p/backward-long.yaml")
  done
  family_bench backward-probes-h100 "${jobs[@]}" ;;
backward-cli)
  # Issue 43's operators through the command line, as a user runs them: kevo eval of each operator's seeds in fp32 and
  # bf16 (standard suite, cuDNN's backward the baseline where it serves the dtype), then a short campaign of each in
  # fp32 (built-in agent, SHORT_MINUTES, default 1.5) with its show and lineage.
  [[ ${BACKWARD_EVALS:-1} == 0 ]] && echo "kevo eval of the seeds left out (BACKWARD_EVALS=0)"
  for op in softmax_backward log_softmax_backward; do
    for d in fp32 bf16; do
      [[ ${BACKWARD_EVALS:-1} == 0 ]] && continue
      timeout 150 "$KEVO" eval --op "$op" --dtype "$d" seeds/$op/*.cu --json "$out/eval-$op-$d.json" \
        > "$out/eval-$op-$d.txt" 2>&1
      echo "eval $op $d exit $?"; grep -E "score|^[a-z_]+\.cu|verdict|error" "$out/eval-$op-$d.txt" | head -8
    done
  done
  for op in softmax_backward log_softmax_backward; do
    { sed -e "s/^name: $op/name: $op-short/" "config/$op.yaml"
      printf 'stop:\n  wall_minutes: %s\n' "${SHORT_MINUTES:-1.5}"; } > "$out/$op-short.yaml"
    timeout 200 "$KEVO" evolve --config "$out/$op-short.yaml" --lines > "$out/campaign-$op.txt" 2>&1
    echo "campaign $op exit $?"; tail -4 "$out/campaign-$op.txt"
    folder=$(ls -dt mutations/$op-short* 2>/dev/null | head -1)
    if [[ -n $folder ]]; then
      "$KEVO" show "$folder" > "$out/campaign-$op-show.txt" 2>&1
      "$KEVO" lineage "$folder" > "$out/campaign-$op-lineage.txt" 2>&1
      cp "$folder/champion.cu" "$out/campaign-$op-champion.cu" 2>/dev/null
      head -30 "$out/campaign-$op-show.txt"
    fi
  done ;;
backward-heldout)
  # The held_rows seed of softmax_backward on the held-out shapes confirmation found it one element off on (call 12),
  # as suite shapes: every input case checked, after the harness's flush term was widened to subnormal answers.
  timeout 200 "$KEVO" eval --op softmax_backward --suite bench/results/forward-family-h100/probes/backward-heldout.yaml \
    seeds/softmax_backward/held_rows.cu --json "$out/heldout.json" > "$out/heldout.txt" 2>&1
  echo "eval exit $?"; tail -12 "$out/heldout.txt" ;;
export-backward)
  # export-backward OP [DTYPE]: bench/export-torch.sh for a gradient (its held_rows seed judged at scale, sanitized
  # and exported; the C++ examples and the torch package's example.py run on the GPU).
  op=${2:?OP}; dtype=${3:-}
  OP=$op DTYPE=$dtype OUT="$out/export" timeout 540 bash bench/export-torch.sh > "$out/export-$op.txt" 2>&1
  echo "export $op${dtype:+ $dtype} exit $?"; tail -12 "$out/export-$op.txt" ;;
llm-backward)
  # The scripted-model campaign of softmax_backward (bench/llm-step.sh: its prompts distinct, its answers judged, one
  # that does not compile repaired).
  CONFIG=bench/llm-step-softmax_backward.yaml ANSWERS=bench/llm-answers-softmax_backward OUT="$out/llm" \
    timeout 540 bash bench/llm-step.sh > "$out/llm.txt" 2>&1
  echo "scripted softmax_backward campaign exit $?"; tail -3 "$out/llm.txt" ;;
llm-loss)
  # The scripted-model campaign of cross_entropy: a loss's labels, outputs and scalar through the model's prompt,
  # answers and repair round.
  CONFIG=bench/llm-step-cross_entropy.yaml ANSWERS=bench/llm-answers-cross_entropy OUT="$out/llm" \
    timeout 540 bash bench/llm-step.sh > "$out/llm.txt" 2>&1
  echo "scripted cross_entropy campaign exit $?"; tail -3 "$out/llm.txt" ;;
export-training)
  # export-training OP [DTYPE [FORWARD BACKWARD]]: bench/export-training.sh (a forward and its gradient as one torch
  # package for training, its train_check.py run); FORWARD and BACKWARD name kernel files (campaign champions) in place
  # of its seeds.
  op=${2:?OP}; dtype=${3:-fp32}
  FORWARD=${4:-${FORWARD:-}} BACKWARD=${5:-${BACKWARD:-}} OP=$op DTYPE=$dtype OUT="$out/export" timeout 540 \
    bash bench/export-training.sh > "$out/export-training-$op.txt" 2>&1
  echo "export-training $op $dtype exit $?"; tail -8 "$out/export-training-$op.txt" ;;
family-backward)
  # Issue 43's operators through the family bench, which compiles and launches a kernel file by its own plans: the
  # backward seeds (or champions) beside torch's backward ops and a Triton kernel, fp32 and bf16, llm suite.
  sb=${2:-seeds/softmax_backward/block_dot.cu}; lsb=${3:-seeds/log_softmax_backward/block_dot.cu}
  family_bench family-backward-h100 "softmax_backward:fp32:$sb:llm" "log_softmax_backward:fp32:$lsb:llm" \
    "softmax_backward:bf16:$sb:llm" "log_softmax_backward:bf16:$lsb:llm" ;;
family-backward-champions)
  # family-backward-champions SB32 LSB32 SB16 LSB16: each backward operator's campaign champion of each dtype (a
  # rendered genome implements one dtype) on the llm suite beside torch and Triton.
  family_bench family-backward-champions-h100 "softmax_backward:fp32:${2:?SB32}:llm" \
    "log_softmax_backward:fp32:${3:?LSB32}:llm" "softmax_backward:bf16:${4:?SB16}:llm" \
    "log_softmax_backward:bf16:${5:?LSB16}:llm" ;;
loss-cli)
  # A loss (cross_entropy, or OP: cross_entropy_sum) through the command line, as a user first meets it: its seeds and
  # own baseline on the standard suite, then its seeds on the llm suite, each in fp32 and bf16.
  op=${2:-cross_entropy}
  for d in fp32 bf16; do
    for f in seeds/$op/*.cu "evaluator/baselines/${op}_two_pass.cu"; do
      name=eval-$(basename "$f" .cu)-$d
      timeout 200 "$KEVO" eval --op "$op" --dtype "$d" --suite standard "$f" --json "$out/$name.json" \
        > "$out/$name.txt" 2>&1
      echo "$name exit $?"; grep -E 'PASS|REJECTED|FAIL' "$out/$name.txt" | tail -1
    done
  done
  for d in fp32 bf16; do
    for f in seeds/$op/*.cu; do
      name=eval-$(basename "$f" .cu)-llm-$d
      timeout 200 "$KEVO" eval --op "$op" --dtype "$d" --suite llm "$f" --json "$out/$name.json" > "$out/$name.txt" 2>&1
      echo "llm $(basename "$f" .cu) $d exit $?"; grep -E 'PASS|REJECTED|FAIL' "$out/$name.txt" | tail -1
    done
  done ;;
loss-scale)
  k=${2:-seeds/cross_entropy/held_rows.cu}
  for d in fp32 bf16; do
    cp "$k" "$out/k-$d.cu"
    timeout 270 "$KEVO" eval --op cross_entropy --dtype "$d" --suite llm --at-scale --sanitize "$out/k-$d.cu" \
      --json "$out/eval-scale-$d.json" > "$out/eval-scale-$d.txt" 2>&1
    echo "at scale $d exit $?"; grep -E 'at scale|sanitized|PASS|REJECTED' "$out/eval-scale-$d.txt" | tail -3
  done ;;
export-loss)
  k=${2:-seeds/cross_entropy/held_rows.cu}
  mkdir -p "$out/judged"; cp "$k" "$out/judged/"; f=$out/judged/$(basename "$k")
  timeout 300 "$KEVO" eval --op cross_entropy --sanitize "$f" > "$out/sanitize.txt" 2>&1
  echo "sanitize exit $?"; grep -E 'sanitized|PASS|REJECTED' "$out/sanitize.txt" | tail -2
  "$KEVO" export "$f" --to cpp --out "$out/cpp" > "$out/export.txt" 2>&1; echo "export exit $?"
  (cd "$out/cpp" && /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -o example example.cu kevo_cross_entropy.cu \
    && ./example 32x128 1024x1000 4096x32000 2048x128256 512x262144 8x128256 1x1000000) > "$out/example.txt" 2>&1
  echo "example exit $?"; tail -8 "$out/example.txt"; rm -f "$out/cpp/example" ;;
export-loss-torch)
  OP=cross_entropy CHAMPION=${2:-} DTYPE=${3:-} OUT="$out/export" timeout 540 bash bench/export-torch.sh \
    > "$out/export.txt" 2>&1
  echo "export-torch exit $?"; tail -12 "$out/export.txt" ;;
family-jobs)
  name=${2:?NAME}; shift 2; family_bench "$name" "$@" ;;
ncu)
  op=${2:?OP}; dtype=${3:?DTYPE}; k=${4:?KERNEL}; shape=${5:?SHAPE}; re=${6:-.}
  name=ncu-$(basename "$k" .cu)-$dtype-${shape//:/-}; ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  # --launch-skip 3: plan_runs.py's first run (its launches and the plan's other kernels) is not the one measured.
  timeout 300 "$ncu" --clock-control none --kernel-name "regex:$re" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
    --section SourceCounters -o "$out/$name" python3 bench/plan_runs.py "$op" "$dtype" "$k" "$shape" 3 \
    > "$out/$name.txt" 2>&1
  echo "ncu exit $?"; "$ncu" --import "$out/$name.ncu-rep" --page details > "$out/$name-details.txt" 2>&1
  "$ncu" --import "$out/$name.ncu-rep" --page source --print-source sass --csv > "$out/$name-sass.csv" 2>&1
  grep -E 'Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Warp Cycles Per Issued' \
    "$out/$name-details.txt" | head -12 ;;
family-loss|family-loss-sum)
  op=cross_entropy; [[ $step == family-loss-sum ]] && op=cross_entropy_sum
  k32=${2:-seeds/$op/held_rows.cu}; k16=${3:-$k32}
  timeout 560 python3 bench/family.py --rounds "${ROUNDS:-20}" --out "$out/family-loss.json" \
    --job "$op:fp32:$k32:llm" --job "$op:bf16:$k16:llm" > "$out/family-loss.txt" 2>&1
  echo "family exit $?"; grep -E '^\{' "$out/family-loss.txt" | cut -c1-220; tail -5 "$out/family-loss.txt" ;;
loss-eval)
  # kevo eval of cross_entropy kernels on the llm suite, each in its dtype (a rendered genome implements one), with
  # the held-out shapes at scale: K32 in fp32, K16 in bf16.
  for pair in "fp32:${2:?K32}" "bf16:${3:-$2}"; do
    d=${pair%%:*}; k=${pair#*:}
    timeout 270 "$KEVO" eval --op "${OP:-cross_entropy}" --dtype "$d" --suite llm --at-scale "$k" \
      --json "$out/eval-$d.json" > "$out/eval-$d.txt" 2>&1
    echo "eval $d exit $?"; grep -E 'at scale|PASS|REJECTED' "$out/eval-$d.txt" | tail -2
  done ;;
adversarial)
  # The corpus after the evaluator or a harness changed: every file's verdict against its expected one.
  CORPUS=${2:-*.cu} timeout 540 python3 bench/adversarial.py "$out/adversarial.json" > "$out/adversarial.txt" 2>&1
  echo "adversarial exit $?"; python3 bench/adversarial_table.py "$out/adversarial.json" > "$out/adversarial-table.md"
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print("allAsExpected", d["allAsExpected"]); [print(r["file"], r["expected"], r["verdict"]) for r in d["corpus"] if r["verdict"] != r["expected"]]' "$out/adversarial.json" ;;
family-backward-all)
  # Every backward kernel kevo has, on the llm suite beside torch and Triton, fp32 and bf16: the block_dot and held_rows
  # seeds and the built-in genome's default rendering (bench/results/forward-family-h100/probes/README.md).
  p=bench/results/forward-family-h100/probes jobs=()
  for op in softmax_backward log_softmax_backward; do
    for d in fp32 bf16; do
      jobs+=("$op:$d:seeds/$op/block_dot.cu:llm" "$op:$d:seeds/$op/held_rows.cu:llm" "$op:$d:$p/genome-$op-$d.cu:llm")
    done
  done
  family_bench family-backward-all-h100 "${jobs[@]}" ;;
*)
  echo "forward-family-h100.sh: unknown step '$step'" >&2; exit 2 ;;
esac
