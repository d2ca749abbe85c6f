#!/usr/bin/env python3
"""chapter9_golden.py: write the PyTorch reference of chapter 9's GPT
(src/models/gpt.h) for tests/test_gpt_golden.c, in the manner of llm.c's
test_gpt2: a tiny model's logits, loss and the gradient of every parameter
tensor, then ten training steps of torch.optim.AdamW with clipping.

    /usr/bin/python3 tests/reference/chapter9_golden.py tests/golden

writes gpt.txt into the given directory:

  config       V, T, d, h, L, B (the batch), n (positions per sequence)
  init         every parameter, flat, in the C's block order: GPT-2's
               starting values (normal(0, 0.02), the two residual
               projections 0.02 / sqrt(2 L), biases 0, gains 1) drawn here
               with torch.randn; the C loads them (its own normals agree
               with PyTorch's to a few 1e-7 only, core/rng.h)
  windows      (STEPS, B, n + 1) random ids: step k's inputs are each
               window's first n, its targets the last n
  logits       (B, n, V) of step 0's inputs, and loss its mean cross-entropy
  grad.<name>  the gradient of that loss for each tensor (C names: wte,
               wpe, h.0.ln_1.weight, ...); wte's holds both its uses
  steps.loss   the loss before each of STEPS steps, each: zero_grad,
               backward, clip_grad_norm_(1.0) (steps.norm, its returned
               norm), AdamW at the schedule's rate (betas 0.9, 0.95, eps
               1e-8, weight decay 0.1 on 2-d parameters only)
  after        every parameter after the STEPS steps, flat
"""
import math
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goldenfile  # noqa: E402
from chapter9_twin import GPT, adamw, c_name, lr_at, train_step  # noqa: E402

section = goldenfile.compact_section

V, T, D, H, L, B, N = 11, 8, 8, 2, 2, 3, 8
SEED = 20
STEPS = 10
SCHEDULE = dict(lr_max=1e-2, lr_min=1e-3, warmup=3, decay_steps=8)
BETAS = (0.9, 0.95)
WEIGHT_DECAY = 0.1


def gpt2_init(model):
    """GPT-2's starting values, tensor after tensor in block order."""
    resid = 0.02 / math.sqrt(2 * L)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() == 1:
                p.fill_(1.0 if ".ln_" in "." + name and name.endswith("weight") else 0.0)
            else:
                std = resid if name.endswith("c_proj.weight") else 0.02
                p.copy_(torch.randn(p.shape) * std)


def flat(model):
    return torch.cat([p.detach().reshape(-1) for p in model.parameters()])


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/golden"
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    model = GPT(V, T, D, H, L)
    gpt2_init(model)
    windows = torch.randint(V, (STEPS, B, N + 1))
    lines = [f"# written by tests/reference/chapter9_golden.py, torch {torch.__version__}"]
    section(lines, "config", torch.tensor([V, T, D, H, L, B, N], dtype=torch.int64))
    section(lines, "init", flat(model))
    section(lines, "windows", windows)
    x, y = windows[0, :, :N], windows[0, :, 1:]
    logits, loss = model(x, y)
    loss.backward()
    section(lines, "logits", logits)
    section(lines, "loss", loss.reshape(1))
    for name, p in model.named_parameters():
        section(lines, f"grad.{c_name(name)}", p.grad)
    opt = adamw(model, SCHEDULE["lr_max"], BETAS, WEIGHT_DECAY)
    losses, norms = [], []
    for step in range(STEPS):
        x, y = windows[step, :, :N], windows[step, :, 1:]
        loss, norm = train_step(model, opt, x, y, lr_at(step, **SCHEDULE))
        losses.append(loss)
        norms.append(norm)
    section(lines, "steps.loss", torch.tensor(losses, dtype=torch.float32))
    section(lines, "steps.norm", torch.tensor(norms, dtype=torch.float32))
    section(lines, "after", flat(model))
    goldenfile.write(os.path.join(out_dir, "gpt.txt"), lines)


if __name__ == "__main__":
    main()
