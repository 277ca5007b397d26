#!/usr/bin/env bash
# Runs the tests tagged gpu on a GPU host without Maven, with the bundle's own runtime.
# Needs target/kevo-*-linux-x86_64.tar.gz and target/gpu-tests (bench/pack-gpu-tests.sh) carried along.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/unpack.sh
home=$(dirname "$(dirname "$KEVO")")
"$home/runtime/bin/java" --enable-native-access=ALL-UNNAMED -Dkevo.root="$PWD" \
  -jar target/gpu-tests/junit-platform-console-standalone-*.jar execute \
  --class-path "target/gpu-tests/test-classes:$(ls "$home"/lib/*.jar | tr '\n' ':')" \
  --scan-class-path target/gpu-tests/test-classes --include-tag gpu \
  --details=tree --disable-banner "$@"
