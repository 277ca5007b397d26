"""Writes a variant of a rendered kernel file with a launch bound's minimum blocks an SM on named kernels only.

Usage: python3 bounds.py IN.cu OUT.cu KERNEL=BLOCKS [KERNEL=BLOCKS ...]
"""
import re
import sys

src, out, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(src).read()
for pair in pairs:
    kernel, blocks = pair.split("=")
    pattern = re.compile(r"__launch_bounds__\((\d+)\) " + re.escape(kernel) + r"\(")
    text, n = pattern.subn(lambda m: f"__launch_bounds__({m.group(1)}, {blocks}) {kernel}(", text)
    assert n == 1, f"{kernel}: {n} definitions with a plain launch bound"
open(out, "w").write(text)
print(f"{out}: " + ", ".join(pairs))
