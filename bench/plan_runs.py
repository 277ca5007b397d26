#!/usr/bin/env python3
"""Runs one kevo kernel file's plan at one shape, on inputs drawn as bench/family.py draws them, a few times and then
20 times timed (L2 warm, CUDA events), for a profiler to attach to: what ncu measured in
bench/results/training-family-h200/call13-ncu/ came from
  ncu --clock-control none --kernel-name regex:'^ce_' --launch-skip 3 --launch-count 3 --section SpeedOfLight \\
      --section Occupancy --section WarpStateStats python3 bench/plan_runs.py cross_entropy bf16 FILE 65536x4096 1
(--launch-skip skips the first run's launches). Prints the plan's kernels and its warm time a run. The shape is any
suite shape: ROWSxCOLS, or BATCHxHEADSxQUERIESxKEYS with a mask kind after it for masked_softmax (e.g.
4x32x16x32768:additive), its inputs drawn as bench/family.py draws that case's.
Usage: python3 bench/plan_runs.py OP DTYPE KERNEL SHAPE [RUNS_BEFORE_TIMING (default 3)]"""
import sys

import family


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    op_name, dtype, path, shape_text = argv[:4]
    runs = int(argv[4]) if len(argv) > 4 else 3
    family.load_gpu_modules()
    torch, kb = family.torch, family.kb
    shape = kb.Shape.parse(shape_text)
    rows, cols = shape.rows, shape.cols
    props = torch.cuda.get_device_properties(0)
    torch.zeros(1, device="cuda")  # the driver-API loader works in torch's context
    kernel = kb.KevoKernel(kb.Cuda(), path, f"sm_{props.major}{props.minor}", props.multi_processor_count, dtype,
                           op_name)
    op = family.OPS[op_name]
    xt, yt = kb.DTYPES[dtype]
    gen = torch.Generator(device="cuda")
    gen.manual_seed(0)
    inputs = op.inputs(shape, xt, gen)
    y, more = op.output(inputs, yt), op.more_outputs(inputs)
    plan, ws = kernel.prepare(rows, cols, shape.variables())
    run = kernel.bind_tensors(plan, {**inputs, op.output_name: y, **more, "ws": ws}, rows, cols,
                              torch.cuda.current_stream().cuda_stream, shape.variables())
    for _ in range(runs):
        run()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(20):
        run()
    end.record()
    end.synchronize()
    kernels = [launch["kernel"] for launch in plan["launches"]]
    print(f"{path} {dtype} {shape_text}: {kernels} {start.elapsed_time(end) / 20 * 1000:.1f} us a run (L2 warm)")


if __name__ == "__main__":
    main(sys.argv[1:])
