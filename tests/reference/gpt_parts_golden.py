#!/usr/bin/env python3
"""gpt_parts_golden.py: write the PyTorch reference of the parts chapter 9's
GPT is built from, for tests/test_gpt_parts.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/gpt_parts_golden.py tests/golden

writes gpt_parts.txt into the given directory:

  gelu.*       nn.GELU(approximate='tanh') on GELU_N inputs, and the
               gradient of sum(gelu(x) * dout) with respect to x by autograd.
  lr.*         the learning rate of lr_at (src/layers/lr_schedule.h) at
               chosen steps, warm-up, cosine and the floor after it.
  opt.*        ten steps of torch.optim.AdamW, betas (0.9, 0.95), on four
               tensors: a weight (4, 3) and an embedding (5, 3) with weight
               decay 0.1, a bias (4) and a LayerNorm gain (3) without
               (two parameter groups). Before each step: the step's gradient
               (torch.randn, times 0.05 on even steps and 1 on odd ones, so
               that some are clipped and some not), clip_grad_norm_ of all
               four at 1.0 (its returned norm, the clipped gradients), the
               step's learning rate from the schedule of OPT_SCHEDULE; after
               it, the parameters. Flattened in the order weight, bias,
               gain, embedding: the one flat array the C code keeps.
  batch.*      torch.randint(n - T, (B,), generator) for chapter 9's batches
               (src/tasks/austen.h), two batches in a row from one seed, for
               a short text and for the training text's length with
               Persuasion held out.
"""
import math
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goldenfile  # noqa: E402

section = goldenfile.compact_section

GELU_N = 64
LR_STEPS = [0, 1, 4, 9, 10, 11, 30, 55, 99, 100, 101, 500]
LR_SCHEDULE = dict(lr_max=6e-4, lr_min=6e-5, warmup=10, decay_steps=100)
OPT_SCHEDULE = dict(lr_max=1e-2, lr_min=1e-3, warmup=3, decay_steps=8)
OPT_STEPS = 10
BATCHES = [  # (seed, n, B, T)
    (1337, 100, 16, 8),
    (42, 3558174, 8, 64),  # the training text's characters, Persuasion held out
]


def lr_at(step, lr_max, lr_min, warmup, decay_steps):
    """The schedule of src/layers/lr_schedule.h: linear warm-up to lr_max
    (step + 1) / warmup, then cosine down to lr_min at decay_steps."""
    if step < warmup:
        return lr_max * (step + 1) / warmup
    if step >= decay_steps:
        return lr_min
    r = (step - warmup) / (decay_steps - warmup)
    return lr_min + 0.5 * (1.0 + math.cos(math.pi * r)) * (lr_max - lr_min)


def gelu(lines):
    torch.manual_seed(7)
    x = torch.cat([torch.linspace(-6, 6, GELU_N // 2), 3 * torch.randn(GELU_N // 2)])
    x.requires_grad_(True)
    dout = torch.randn(GELU_N)
    y = torch.nn.GELU(approximate="tanh")(x)
    (y * dout).sum().backward()
    section(lines, "gelu.x", x)
    section(lines, "gelu.y", y)
    section(lines, "gelu.dout", dout)
    section(lines, "gelu.dx", x.grad)
    # how far the tanh form is from the exact one on these inputs
    exact = F.gelu(x.detach())
    section(lines, "gelu.erf_gap", (y.detach() - exact).abs().max().reshape(1))


def schedule(lines):
    section(lines, "lr.steps", torch.tensor(LR_STEPS, dtype=torch.int64))
    lrs = [lr_at(s, **LR_SCHEDULE) for s in LR_STEPS]
    section(lines, "lr.values", torch.tensor(lrs, dtype=torch.float32))


def optimiser(lines):
    torch.manual_seed(2026)
    weight = torch.randn(4, 3).requires_grad_(True)
    bias = (0.1 * torch.randn(4)).requires_grad_(True)
    gain = torch.ones(3).requires_grad_(True)
    embedding = torch.randn(5, 3).requires_grad_(True)
    params = [weight, bias, gain, embedding]
    flat = lambda ts: torch.cat([t.detach().reshape(-1) for t in ts])  # noqa: E731
    section(lines, "opt.init", flat(params))
    opt = torch.optim.AdamW(
        [{"params": [weight, embedding], "weight_decay": 0.1},
         {"params": [bias, gain], "weight_decay": 0.0}],
        lr=OPT_SCHEDULE["lr_max"], betas=(0.9, 0.95), eps=1e-8)
    grads, norms, clipped, lrs, after = [], [], [], [], []
    for step in range(OPT_STEPS):
        scale = 0.05 if step % 2 == 0 else 1.0
        for p in params:
            p.grad = scale * torch.randn(p.shape)
        grads.append(flat([p.grad for p in params]))
        norms.append(torch.nn.utils.clip_grad_norm_(params, 1.0).reshape(1))
        clipped.append(flat([p.grad for p in params]))
        lr = lr_at(step, **OPT_SCHEDULE)
        for group in opt.param_groups:
            group["lr"] = lr
        lrs.append(lr)
        opt.step()
        after.append(flat(params))
    section(lines, "opt.grads", torch.stack(grads))
    section(lines, "opt.norms", torch.cat(norms))
    section(lines, "opt.clipped", torch.stack(clipped))
    section(lines, "opt.lr", torch.tensor(lrs, dtype=torch.float32))
    section(lines, "opt.after", torch.stack(after))


def batches(lines):
    for seed, n, b, t in BATCHES:
        g = torch.Generator().manual_seed(seed)
        starts = torch.cat([torch.randint(n - t, (b,), generator=g) for _ in range(2)])
        section(lines, f"batch.{seed}.starts", starts)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/golden"
    lines = [f"# written by tests/reference/gpt_parts_golden.py, torch {torch.__version__}"]
    gelu(lines)
    schedule(lines)
    optimiser(lines)
    batches(lines)
    goldenfile.write(os.path.join(out_dir, "gpt_parts.txt"), lines)


if __name__ == "__main__":
    main()
