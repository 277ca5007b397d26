#!/usr/bin/env bash
# Fetches the Debian bookworm packages bench/slurm-gpu.sh unpacks on a GPU host that has no Slurm and no network:
# Slurm 22.05's daemons, client and plugins, munge, and the libraries they need that a plain bookworm image with
# python3 lacks (about 4.5 MB). Into .slurm-debs/ (ignored by git; carry it with the bundle).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .slurm-debs
cd .slurm-debs
rm -f ./*.deb
apt-get download slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2 libhwloc15 libjson-c5 \
  liblua5.1-0 libnuma1 libyaml-0-2 libdbus-1-3 libreadline8 readline-common libsystemd0 libudev1
echo "slurm-debs: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in .slurm-debs/"
