#!/usr/bin/env bash
# Builds the one-launch split-row probe (not part of kevo: an experiment that times design variants of the
# fused split kernel side by side). Here, with Maven and nvcc: renders the default genome, keeps its device
# library as lib.cuh, compiles fused_probe.cu for sm_90. Carry bench/experiments/probe to the GPU host and run ./fused_probe.
set -euo pipefail
cd "$(dirname "$0")"
root=../../..
: "${JAVA_HOME:=$(ls -d /usr/lib/jvm/*25* | head -1)}"
(cd $root && mvn -q -B -ntp compile && mvn -q -B -ntp dependency:build-classpath -Dmdep.outputFile=target/cp.txt)
cat > /tmp/KevoRender.java <<'JAVA'
public class KevoRender {
    public static void main(String[] a) throws Exception {
        java.nio.file.Files.writeString(java.nio.file.Path.of(a[0]),
                dev.kevo.agent.KernelRenderer.render(dev.kevo.agent.DefaultGenomes.float32()));
    }
}
JAVA
"$JAVA_HOME/bin/java" -cp "$root/target/classes:$(cat $root/target/cp.txt)" /tmp/KevoRender.java default.cu
sed '1,/^\*\//d' default.cu | sed 's/#include "kevo.h"//' > lib.cuh
cp $root/src/main/resources/dev/kevo/cuda/kevo.h .
nvcc -arch=sm_90 -std=c++17 -O3 -I. fused_probe.cu -o fused_probe
