"""The family benchmark's Triton peer for cross_entropy (bench/family.py): the loss and its gradient fused, in the style
of Triton's fused-softmax tutorial and of the fused cross-entropy kernels training libraries ship (Liger's): a program
a row, one online pass of (max, sum of exp) over the row in chunks of BLOCK columns, then a second pass over the chunks
that writes dx = g (softmax - onehot(label)) / n. A module of its own because @triton.jit needs Triton at import time,
and family.py imports Triton only once its arguments are read.

n, the live rows (label not -100), is counted with torch before the kernel, and the loss is torch's sum of the rows'
losses (each row's in a float32 buffer, 0 for an ignored row) divided by n: 0 / 0 = NaN where no row is live, as
torch gives. Both are in what is timed: a training step pays for them. The sum (reduction='sum', cross_entropy_sum)
divides by 1: no count, dx = g (softmax - onehot(label)), the loss the rows' sum (0 where no row is live, as torch
gives); MEAN, a constexpr, keeps the count's load out of the sum's kernel and the mean's kernel as it was.
"""
import torch
import triton
import triton.language as tl

IGNORE_INDEX = -100  # torch's default ignore_index, the only one kevo's cross_entropy takes
CHUNK = 4096  # columns a program holds at once: rows of any length in chunks, as one program a row never holds 10^7


@triton.jit
def cross_entropy_kernel(x_ptr, labels_ptr, dx_ptr, row_loss_ptr, live_ptr, g, n_cols, x_stride, dx_stride,
                         BLOCK: tl.constexpr, MEAN: tl.constexpr):
    # int64 offsets: a suite's x reaches 2^28 elements, and a row's offset times its stride is taken before the mask
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_stride
    dx_row = dx_ptr + row * dx_stride
    label = tl.load(labels_ptr + row)
    if label == -100:  # IGNORE_INDEX: a jit function reads no Python global that is not a constexpr
        for start in tl.range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            tl.store(dx_row + cols, tl.zeros([BLOCK], dtype=tl.float32), mask=cols < n_cols)
        tl.store(row_loss_ptr + row, 0.0)
    else:
        # Each lane keeps its own online (max, sum), merged once after the pass: no reduction across the program per
        # chunk. A lane that has seen only -inf (the masked tail of the last chunk) keeps (-inf, 0): its rescaling is
        # taken against 0 there, not against -inf, whose difference with itself is NaN.
        m = tl.full([BLOCK], float("-inf"), tl.float32)
        s = tl.zeros([BLOCK], dtype=tl.float32)
        for start in tl.range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            v = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
            top = tl.maximum(m, v)
            base = tl.where(top == float("-inf"), 0.0, top)
            s = s * tl.exp(m - base) + tl.exp(v - base)
            m = top
        row_max = tl.max(m, axis=0)
        # (x - max) - log(sum), never x - (max + log(sum)): the latter absorbs log(sum) where the maximum is huge.
        # The sum is >= 1: the maximum's lane adds exp(0).
        log_sum = tl.log(tl.sum(s * tl.exp(m - row_max), axis=0))
        if MEAN:
            per = g / tl.load(live_ptr).to(tl.float32)  # this row is live, so n >= 1
        else:
            per = g  # the sum's divisor, 1; live_ptr unread
        for start in tl.range(0, n_cols, BLOCK):
            cols = start + tl.arange(0, BLOCK)
            mask = cols < n_cols
            v = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
            p = tl.exp((v - row_max) - log_sum)
            tl.store(dx_row + cols, tl.where(cols == label, p - 1.0, p) * per, mask=mask)
        x_label = tl.load(x_row + label).to(tl.float32)
        tl.store(row_loss_ptr + row, (row_max - x_label) + log_sum)


def cross_entropy(x, labels, dx, loss, g, row_loss, reduction="mean"):
    """F.cross_entropy(x, labels, reduction=REDUCTION), 'mean' or 'sum', into loss (one float32) and g times its
    gradient into dx; row_loss a float32 buffer of one element a row. Warps as the tutorial gives them for a block of
    CHUNK columns or fewer. The sum counts no live rows: its kernel is given the labels for the count it never reads."""
    if reduction not in ("mean", "sum"):
        raise ValueError(f"reduction '{reduction}': 'mean' or 'sum'")
    mean = reduction == "mean"
    n_rows, n_cols = x.shape
    live = (labels != IGNORE_INDEX).sum() if mean else labels
    block = min(triton.next_power_of_2(n_cols), CHUNK)
    warps = 16 if block >= 4096 else 8 if block >= 2048 else 4
    cross_entropy_kernel[(n_rows,)](x, labels, dx, row_loss, live, g, n_cols, x.stride(0), dx.stride(0), BLOCK=block,
                                    MEAN=mean, num_warps=warps)
    if mean:
        torch.div(torch.sum(row_loss, dim=0, keepdim=True), live, out=loss)
    else:
        torch.sum(row_loss, dim=0, keepdim=True, out=loss)
