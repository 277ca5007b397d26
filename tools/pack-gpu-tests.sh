#!/usr/bin/env bash
# Run here (with Maven): packs the compiled tests and JUnit's console launcher into target/gpu-tests, to be
# carried to a GPU host that has no JDK or Maven, next to the bundle (target/gpu-tests, or target/gpu-tests.tgz, which
# is smaller). Then, there: tools/gpu-tests.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${JAVA_HOME:=$(ls -d /usr/lib/jvm/*25* | head -1)}"
export JAVA_HOME
mvn -q -B -ntp package -DskipTests
mvn -q -B -ntp dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:1.13.4 \
    -DoutputDirectory=target/gpu-tests
rm -rf target/gpu-tests/test-classes && cp -r target/test-classes target/gpu-tests/test-classes
# Also as one compressed file: the device tool carries at most 64 MB, and the bundle takes most of it.
tar czf target/gpu-tests.tgz -C target gpu-tests
