#!/usr/bin/env bash
# A one-node Slurm cluster on the loopback, for CI and for the GPU host: munged, slurmctld and slurmd, all as the
# calling user (root in CI), all state under one folder, nothing written outside it.
#
#   tools/slurm-local.sh start    writes the configs, starts the daemons, waits until the node is idle
#   tools/slurm-local.sh stop     stops what start started (by the pids it recorded)
#   tools/slurm-local.sh env      prints the exports a client needs (SLURM_CONF, and PATH/LD_LIBRARY_PATH for a prefix)
#
# Settings (environment):
#   KEVO_SLURM_DIR     state, configs, logs, munge socket (default /tmp/kevo-slurm)
#   KEVO_SLURM_PREFIX  where Debian's packages were unpacked with dpkg -x (default: empty, the system's install)
#   KEVO_SLURM_GPUS    GPUs the node offers as gres gpu (default 0); GPU i is /dev/nvidia<i>
#   KEVO_SLURM_GPU_FILES  the GPU device files' prefix instead of /dev/nvidia (a test without GPUs makes stand-ins)
#   KEVO_SLURM_LIBS    library path for a prefix (default: its lib and slurm-wlm folders)
#   KEVO_SLURM_CPUS    CPUs the node offers (default nproc, at least 8: CI's fake workers are light, and each
#                      worker step holds one CPU)
set -euo pipefail

dir=${KEVO_SLURM_DIR:-/tmp/kevo-slurm}
prefix=${KEVO_SLURM_PREFIX:-}
gpus=${KEVO_SLURM_GPUS:-0}
cpus=${KEVO_SLURM_CPUS:-$(( $(nproc) > 8 ? $(nproc) : 8 ))}
arch_lib=$prefix/usr/lib/x86_64-linux-gnu

client_env() {
  echo "export SLURM_CONF=$dir/slurm.conf"
  if [[ -n $prefix ]]; then
    echo "export PATH=$prefix/usr/bin:$prefix/usr/sbin:\$PATH"
    echo "export LD_LIBRARY_PATH=${KEVO_SLURM_LIBS:-$arch_lib:$arch_lib/slurm-wlm}\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
  fi
}

write_configs() {
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  chmod 700 "$dir/munge"
  if [[ ! -s $dir/munge/munge.key ]]; then
    # 1024 random bytes, as mungekey makes; a fresh key per cluster, never a shared one.
    head -c 1024 /dev/urandom > "$dir/munge/munge.key"
    chmod 400 "$dir/munge/munge.key"
  fi
  local plugins=/usr/lib/x86_64-linux-gnu/slurm-wlm gres_line="" gres_types=""
  [[ -n $prefix ]] && plugins=$arch_lib/slurm-wlm
  if (( gpus > 0 )); then
    gres_types="GresTypes=gpu"
    gres_line=" Gres=gpu:$gpus"
    : > "$dir/gres.conf"
    for ((i = 0; i < gpus; i++)); do echo "NodeName=localhost Name=gpu File=${KEVO_SLURM_GPU_FILES:-/dev/nvidia}$i" >> "$dir/gres.conf"; done
  fi
  # proctrack/linuxproc and task/none: no cgroups, which a container seldom lets a daemon manage. CR_Core: steps
  # share the node's memory, so one worker step never waits for another's memory to be given back.
  cat > "$dir/slurm.conf" <<EOF
ClusterName=kevo
SlurmctldHost=localhost
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
PluginDir=$plugins
PlugStackConfig=$dir/plugstack.conf
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=5
MinJobAge=30
SlurmctldPort=${KEVO_SLURM_PORT:-6817}
SlurmdPort=$(( ${KEVO_SLURM_PORT:-6817} + 1 ))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
$gres_types
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=1000$gres_line State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  : > "$dir/plugstack.conf"
  # slurmd starts its cgroup plugin whatever the task and proctrack plugins are. On a cgroup v2 host (the H100's)
  # that plugin wants systemd, or a delegated hierarchy with the cpuset, memory and cpu controllers, which a
  # container has not got, and slurmd refuses to start. With proctrack/linuxproc and task/none nothing uses
  # cgroups, so the v1 plugin is pointed at an empty folder of the cluster's own: it loads, and finds nothing to do.
  mkdir -p "$dir/cgroup"
  printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=%s\n' "$dir/cgroup" > "$dir/cgroup.conf"
}

pid_alive() { [[ -s $1 ]] && kill -0 "$(cat "$1" 2>/dev/null)" 2>/dev/null; }

start() {
  write_configs
  eval "$(client_env)"
  local sbin=/usr/sbin
  if [[ -n $prefix ]]; then
    sbin=$prefix/usr/sbin
    # Unpacked Debian packages name the daemons slurmd-wlm etc.; installed, the plain names are alternatives' links.
    # The plain names matter: Slurm tells its daemons apart by program name (as slurmd-wlm, slurmd ignores its
    # node's GPUs).
    for d in slurmctld slurmd slurmstepd; do
      [[ -e $sbin/$d ]] || ln -s "$d-wlm" "$sbin/$d"
    done
  fi
  if ! pid_alive "$dir/munged.pid"; then
    # --force: munged as root, and a key folder it did not make; fine for a throwaway loopback cluster.
    "$sbin/munged" --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
      --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munged.seed"
  fi
  if ! pid_alive "$dir/slurmctld.pid"; then
    "$sbin/slurmctld" -c -i  # -c: a fresh cluster, no jobs from an earlier start
  fi
  if ! pid_alive "$dir/slurmd.pid"; then
    # -N: this node is "localhost" whatever the host is called; -d: its step daemon from the same install.
    "$sbin/slurmd" -N localhost -d "$sbin/slurmstepd"
  fi
  local state=""
  for _ in $(seq 1 60); do
    state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
    if [[ $state == idle* ]]; then
      echo "slurm: one-node cluster up ($cpus CPUs, $gpus GPUs), SLURM_CONF=$dir/slurm.conf"
      return 0
    fi
    sleep 1
  done
  echo "slurm: the node did not become idle within 60 s (state '${state:-none}'); logs in $dir" >&2
  tail -n 5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  return 1
}

stop() {
  local f
  for f in slurmd slurmctld munged; do
    if pid_alive "$dir/$f.pid"; then
      kill "$(cat "$dir/$f.pid")" || true
      for _ in $(seq 1 20); do pid_alive "$dir/$f.pid" || break; sleep 0.5; done
    fi
    rm -f "$dir/$f.pid"
  done
  echo "slurm: stopped"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  env) client_env ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
