#!/usr/bin/env python3
"""Builds the exported kevo kernel with torch.utils.cpp_extension.load (needs ninja: pip install ninja; without it,
use setup.py) and checks it against F.cross_entropy (reduction="@@REDUCTION@@") and its gradient in float64: the op itself with a drawn incoming
gradient g, then the loss function with its backward (@@P@@_loss.py) through autograd; then times a training step's loss (forward and
backward into x.grad) through the loss function beside F.cross_entropy's on language-model head shapes. Run from this
folder: python example.py (prints one line a check, exits 1 if any is WRONG)"""
import os
import sys

import torch
import torch.nn.functional as F
from torch.utils.cpp_extension import load

import @@P@@_loss

here = os.path.dirname(os.path.abspath(__file__))
@@P@@ = load(
    name="@@P@@", sources=[os.path.join(here, "@@P@@_torch.cpp"), os.path.join(here, "@@P@@.cu")],
    extra_cflags=["-O3"], extra_cuda_cflags=["-O3"], verbose=False)
loss_fn = @@P@@_loss.loss_function(@@P@@)
@@PY_HELPERS@@

def reference(x, labels, g):
    """F.cross_entropy's loss and g times its gradient in float64, with kevo's bounds: dx's per element (the part of
    it relative to the gradient's scale |g| / n; 0 on an ignored row, which must be exactly 0), the scale its L2 error
    is taken against, |g| / n (p + onehot), and the loss's, the mean over live rows of |max - x[label]| + log(sum) + 1."""
    xd = x.double().requires_grad_()
    loss = F.cross_entropy(xd, labels, ignore_index=-100, reduction="@@REDUCTION@@")
    loss.backward()
    live = (labels != -100).unsqueeze(-1)
    n = max(int(live.sum()), 1)
    x64 = x.double()
    p = torch.softmax(x64, dim=-1)
    hot = F.one_hot(labels.clamp(min=0), x.shape[-1]).double()
    top = x64.amax(dim=-1)
    at = x64.gather(-1, labels.clamp(min=0).unsqueeze(-1)).squeeze(-1)
    magnitude = (top - at).abs() + torch.log(torch.exp(x64 - top.unsqueeze(-1)).sum(dim=-1)) + 1.0
    divisor = n if "@@REDUCTION@@" == "mean" else 1
    per = abs(g) / divisor
    return (loss.detach(), xd.grad * g, live * per * (@@ABS_TOL@@ + @@REL_TOL@@ * p), live * per * (p + hot),
            magnitude[live.squeeze(-1)].sum().item() / divisor)


wrong = 0


def check(name, dx, loss, x, labels, g):
    global wrong
    ref_loss, ref_dx, bound, l2_of, magnitude = reference(x, labels, g)
    err = (dx.double() - ref_dx).abs()
    ok = bool((err <= bound + @@REL_TOL@@ * ref_dx.abs()).all())
    ok = ok and (err.norm() / l2_of.norm().clamp(min=1e-300)).item() <= @@REL_L2@@
    if int((labels != -100).sum()) == 0:  # no live row: torch's mean is NaN, its sum 0; every dx 0
        ok = ok and (bool(torch.isnan(loss)) if "@@REDUCTION@@" == "mean" else loss.item() == 0)
    else:
        ok = ok and abs(loss.item() - ref_loss.item()) <= @@REL_L2@@ * magnitude + 1e-6 * abs(ref_loss.item())
    wrong += not ok
    print(f"{name}: {'ok' if ok else 'WRONG'} (loss {loss.item():.9g} against {ref_loss.item():.9g}; "
          f"dx max abs error {err.max().item():.3g})")


for rows, cols, ignored in [(1024, 1000, 8), (32, 50257, 8), (8, 128256, 8), (16, 1000, 1)]:
    x = (torch.randn(rows, cols, device="cuda") * 4).to(@@X_TYPE@@)  # kevo dtype @@DTYPE@@
    labels = torch.randint(0, cols, (rows,), device="cuda")
    labels[::ignored] = -100  # one row in eight ignored; every row in the last shape (the mean is NaN, as torch's)
    g = draw((1.0, 0.25, 3.0, 1024.0))
    dx, loss = @@P@@.@@FN@@(x, labels, g)  # on torch.cuda.current_stream()
    check(f"{rows}x{cols}, g={g}", dx, loss, x, labels, g)
    xg = x.clone().requires_grad_()
    loss = loss_fn(xg, labels)
    (loss * g).backward()
    check(f"{rows}x{cols}, g={g}, through autograd", xg.grad, loss.detach(), x, labels, g)


def step(f, x, labels):
    """A training step's loss: the forward, and the backward into x.grad (what the step's optimizer then reads)."""
    x.grad = None
    loss = f(x, labels)
    loss.backward()
    return loss


def torch_loss(x, labels):
    return F.cross_entropy(x, labels, ignore_index=-100, reduction="@@REDUCTION@@")


# tokens x vocabulary: GPT-2's, Llama 2's, Llama 3's and Qwen 2's heads
for rows, cols in [(4096, 32000), (4096, 50257), (2048, 128256), (1024, 151936)]:
    x = (torch.randn(rows, cols, device="cuda") * 4).to(@@X_TYPE@@).requires_grad_()
    labels = torch.randint(0, cols, (rows,), device="cuda")
    labels[::64] = -100
    loss = step(loss_fn, x, labels)
    check(f"{rows}x{cols}, training step", x.grad, loss.detach(), x.detach(), labels, 1.0)
    t_kevo = median_us(lambda: step(loss_fn, x, labels))
    t_torch = median_us(lambda: step(torch_loss, x, labels))
    print(f"{rows}x{cols}: step {t_kevo:.1f} us, torch {t_torch:.1f} us ({t_torch / t_kevo:.2f}x)")
sys.exit(1 if wrong else 0)
