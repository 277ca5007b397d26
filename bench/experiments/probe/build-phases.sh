#!/usr/bin/env bash
# Builds the phase probe against the recorded champion's device library (not part of kevo). Here, with nvcc.
set -euo pipefail
cd "$(dirname "$0")"
sed '1,/^\*\//d' ../../results/champion-default-h100.cu | sed 's/#include "kevo.h"//' > lib.cuh
cp ../../../src/main/resources/dev/kevo/cuda/kevo.h .
nvcc -arch=sm_90 -std=c++17 -O3 -I. phases.cu -o phases
