"""Per shape and file: the median time (us) in each run given, then the mean floor fraction over the runs; the last
line is each file's geometric-mean floor. Usage: python3 tables.py RUN.json [RUN.json ...], where each RUN.json is a
`kevo eval --json` record of the same files."""
import collections
import json
import math
import sys

by_shape = collections.OrderedDict()  # shape -> file name -> [shape result per run]
for path in sys.argv[1:]:
    for result in json.load(open(path))["results"]:
        for shape in result["shapes"]:
            by_shape.setdefault(shape["shape"], {}).setdefault(result["name"], []).append(shape)
names = sorted({name for per_file in by_shape.values() for name in per_file})

print("%-12s" % "shape" + "".join("%20s" % name for name in names))
log_floor = {name: 0.0 for name in names}
for shape, per_file in by_shape.items():
    row = "%-12s" % shape
    for name in names:
        runs = per_file[name]
        floor = sum(run["floorFraction"] for run in runs) / len(runs)
        log_floor[name] += math.log(floor)
        times = "/".join("%.2f" % (run["candidate"]["medianMs"] * 1000) for run in runs)
        row += "%15s %.2f" % (times, floor)
    print(row)
print("%-12s" % "floor gm" + "".join("%20.3f" % math.exp(log_floor[name] / len(by_shape)) for name in names))
