#!/usr/bin/env bash
# Unpacks the carried bundle on the GPU machine.
# Usage: source tools/unpack.sh   (sets KEVO to the launcher, exports the NVRTC location; sets no shell options)
bundle=$(ls target/kevo-*-linux-x86_64.tar.gz | head -1)
dest=${KEVO_UNPACK:-/tmp/kevo-bundle}
rm -rf "$dest" && mkdir -p "$dest"
tar xzf "$bundle" -C "$dest"
KEVO=$(ls -d "$dest"/kevo-*/bin/kevo)
export KEVO
for d in /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13.0/targets/x86_64-linux/lib; do
  if [[ -e $d/libnvrtc.so.13 ]]; then export KEVO_NVRTC=$d/libnvrtc.so.13; break; fi
done
