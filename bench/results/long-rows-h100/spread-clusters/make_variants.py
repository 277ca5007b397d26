import json, re, sys
src, out_prefix = sys.argv[1], sys.argv[2]
text = open(src).read()
start = text.index("/*@kevo") + len("/*@kevo"); end = text.index("*/", start)
header = json.loads(text[start:end])
plans = header["plans"]
cl = next(p for p in plans if p["launches"][0]["kernel"].startswith("softmax_cluster"))
launch = cl["launches"][0]
cap = int(re.search(r"cdiv\(cols, (\d+)\)", launch["cluster"]).group(1))
first_fused = next(i for i, p in enumerate(plans) if "cooperative" in p["launches"][0] or p["launches"][0]["kernel"].startswith("softmax_split"))
variants = {"A8": ("8", "sms"), "B16": ("16", "sms"), "C16": ("16", "2 * sms")}
for name, (cmax, target) in variants.items():
    c = f"min({cmax}, max(cdiv(cols, {cap}), cdiv({target}, rows)))"
    new = {"when": f"rows <= 64 && cols > 16384 && cols <= {cmax} * {cap}",
           "launches": [dict(launch, grid=f"rows * {c}", cluster=c)]}
    h = dict(header); h["plans"] = plans[:first_fused] + [new] + plans[first_fused:]
    h["description"] = header["description"] + f"; experiment {name}: few rows spread over clusters of up to {cmax}"
    open(f"{out_prefix}-{name}.cu", "w").write("/*@kevo\n" + json.dumps(h, indent=1) + "\n*/" + text[end + 2:])
    print(name, c)
