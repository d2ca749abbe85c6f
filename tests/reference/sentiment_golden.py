#!/usr/bin/env python3
"""sentiment_golden.py: write the PyTorch reference of one training step of
each of chapter 7's models, for tests/test_sentiment.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/sentiment_golden.py tests/golden

writes sentiment_step.txt into the given directory. For each model (the
baseline, the notebook's attention without softmax, attention with softmax):

  torch.manual_seed(SEED); then, in this order, every parameter drawn with
  Tensor.uniform_ (which the C generator reproduces bit for bit): the
  embedding (V, d) in [-1, 1]; for the attention models the q, k, v kernels
  (d, d_k) in [-0.2, 0.2] each followed by its bias (d_k) in [-0.1, 0.1];
  the output kernel (w, 1) in [-0.2, 0.2] and its bias (1) in [-0.1, 0.1].
  Then the batch: torch.randint(0, V, (B, L)) token ids, torch.randint(0, 2,
  (B,)) labels.

  One step: the logits, the mean sigmoid binary cross-entropy, every
  gradient, and every parameter after torch.optim.Adam(lr=LR, betas=(0.9,
  0.999), eps=1e-8), the update optax.adam makes.

Kernels are (in, out), as flax stores them. The real widths (d = 100,
d_k = 32, L = 32) with a vocabulary of V = 24 rows and a batch of B = 4
chunks keep the file small.

Also: nn.init.trunc_normal_ of a (100, 8) tensor with flax's lecun_normal
scale after torch.manual_seed(SEED), the initialiser the C program draws
its dense kernels with.
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

SEED = 2024
V, D, DK, L, B = 24, 100, 32, 32, 4
LR = 5e-2
KINDS = ["baseline", "notebook-attention", "softmax-attention"]
NAMES = ["wq", "bq", "wk", "bk", "wv", "bv", "wo", "bo", "embedding"]


def draw_parameters(kind):
    torch.manual_seed(SEED)
    p = {"embedding": torch.empty(V, D).uniform_(-1, 1)}
    if kind != "baseline":
        for name in ("q", "k", "v"):
            p["w" + name] = torch.empty(D, DK).uniform_(-0.2, 0.2)
            p["b" + name] = torch.empty(DK).uniform_(-0.1, 0.1)
    width = D if kind == "baseline" else DK
    p["wo"] = torch.empty(width, 1).uniform_(-0.2, 0.2)
    p["bo"] = torch.empty(1).uniform_(-0.1, 0.1)
    ids = torch.randint(0, V, (B, L))
    labels = torch.randint(0, 2, (B,))
    return p, ids, labels


def forward(kind, p, ids):
    x = p["embedding"][ids]                        # (B, L, d)
    if kind == "baseline":
        m = x.mean(dim=1)                          # (B, d)
    else:
        q = x @ p["wq"] + p["bq"]                  # (B, L, d_k)
        k = x @ p["wk"] + p["bk"]
        v = x @ p["wv"] + p["bv"]
        s = q @ k.transpose(1, 2) / math.sqrt(DK)  # (B, L, L)
        w = s.softmax(dim=-1) if kind == "softmax-attention" else s
        m = (w @ v).mean(dim=1)                    # (B, d_k)
    return (m @ p["wo"] + p["bo"]).squeeze(-1)     # (B)


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/golden"
    lines = ["# sentiment_step.txt: one training step of each chapter 7 model in",
             "# PyTorch " + torch.__version__ + "; written by tests/reference/sentiment_golden.py",
             f"# seed {SEED}, V {V}, d {D}, d_k {DK}, L {L}, B {B}, lr {LR}"]
    for kind in KINDS:
        p, ids, labels = draw_parameters(kind)
        names = [n for n in NAMES if n in p]
        for n in names:
            p[n].requires_grad_(True)
        opt = torch.optim.Adam([p[n] for n in names], lr=LR, betas=(0.9, 0.999), eps=1e-8)
        z = forward(kind, p, ids)
        loss = F.binary_cross_entropy_with_logits(z, labels.float())
        opt.zero_grad()
        loss.backward()
        section(lines, f"{kind}.ids", ids)
        section(lines, f"{kind}.labels", labels)
        section(lines, f"{kind}.logits", z)
        section(lines, f"{kind}.loss", loss.reshape(1))
        for n in names:
            section(lines, f"{kind}.grad.{n}", p[n].grad)
        opt.step()
        for n in names:
            section(lines, f"{kind}.after.{n}", p[n])
    torch.manual_seed(SEED)
    std = math.sqrt(1.0 / 100) / 0.87962566103423978
    w = torch.empty(100, 8)
    torch.nn.init.trunc_normal_(w, mean=0.0, std=std, a=-2 * std, b=2 * std)
    section(lines, "lecun_normal_100x8", w)
    path = os.path.join(out_dir, "sentiment_step.txt")
    goldenfile.write(path, lines)


if __name__ == "__main__":
    main()
