#!/usr/bin/env bash
# Runs the tests tagged gpu on a GPU host without Maven, with the bundle's own runtime.
# Needs target/kevo-*-linux-x86_64.tar.gz and target/gpu-tests or target/gpu-tests.tgz (tools/pack-gpu-tests.sh)
# carried along.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -d target/gpu-tests && -f target/gpu-tests.tgz ]]; then tar xzf target/gpu-tests.tgz -C target; fi
source tools/unpack.sh
home=$(dirname "$(dirname "$KEVO")")
# The class path goes to java itself, not to the launcher, so that the workers the tests start (same java,
# same java.class.path) find kevo's classes too.
jars=$(ls "$home"/lib/*.jar | tr '\n' ':')
"$home/runtime/bin/java" --enable-native-access=ALL-UNNAMED -Dkevo.root="$PWD" \
  -cp "target/gpu-tests/test-classes:${jars}$(ls target/gpu-tests/junit-platform-console-standalone-*.jar)" \
  org.junit.platform.console.ConsoleLauncher execute \
  --scan-class-path target/gpu-tests/test-classes --include-tag gpu --disable-banner "$@"
