"""Writes a variant of a rendered masked_softmax file whose causal rows with few queries against their keys
(queries * RATIO <= cols) take block kernels that read every key (skipMasked off) instead of the skipping ones.

Usage: python3 few_queries.py DEFAULT.cu RATIO OUT.cu
"""
import re
import sys

src, ratio, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(src).read()

# The non-skipping config, beside the block regime's own.
cfg = re.search(r"struct BlockCfg \{.*?\n\};\n", text, re.S).group(0)
text = text.replace(cfg, cfg + "struct BlockAllKeysCfg : BlockCfg { static constexpr bool SKIP_MASKED = false; };\n", 1)

# A plan before each block kernel's limit plan, and its kernel beside the limit kernel.
plan = re.compile(r'( *)\{ "when": "\(mask_kind == 1 \|\| mask_kind == 2\) && (\(cols <= \d+\))", "launches": \[\n'
                  r'( *)\{ "kernel": "(softmax_block_\w+)_limit"(.*?)\] \},\n')
added = []


def with_few(m):
    indent, cond, inner, kernel, rest = m.groups()
    added.append(kernel)
    few = (f'{indent}{{ "when": "mask_kind == 1 && queries * {ratio} <= cols && {cond}", "launches": [\n'
           f'{inner}{{ "kernel": "{kernel}_causal_all"{rest}] }},\n')
    return few + m.group(0)


text = plan.sub(with_few, text)
for kernel in added:
    entry = re.search(r'extern "C" __global__ void __launch_bounds__\(\d+\) ' + kernel + r'_limit\(.*?\n\}\n', text, re.S)
    body = entry.group(0)
    twin = body.replace(kernel + "_limit(", kernel + "_causal_all(").replace(
        "OfKind<BlockCfg, MASK_LIMIT>", "OfKind<BlockAllKeysCfg, MASK_LIMIT>")
    assert twin != body and "BlockAllKeysCfg" in twin, kernel
    text = text.replace(body, body + twin, 1)
assert added, "no block limit plan found"
open(out, "w").write(text)
print(f"{out}: {len(added)} block kernels read every key of causal rows where queries * {ratio} <= cols: {added}")
