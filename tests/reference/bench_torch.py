#!/usr/bin/env python3
"""bench_torch.py: one training step of chapter 7's three models in
PyTorch, timed; the reference `make bench` holds the C step against.

Usage (Debian's python3-torch, with OpenBLAS, for /usr/bin/python3):

    /usr/bin/python3 tests/reference/bench_torch.py [--steps N] [--repeats R]

The models and the step are those of src/models/sentiment.c, with the shapes of
./chapter7: a batch of B = 64 chunks of L = 32 token ids from a vocabulary
of V = 10,002 words, embedding width d = 100, queries, keys and values of
width d_k = 32. The ids are drawn by Zipf's law, as words occur in text (id
r with probability proportional to 1 / (r + 1)), as tests/bench/bench_train.c
draws them.

  baseline:           embedding -> mean over L -> Dense(1)
  notebook-attention:     embedding -> q, k, v = Dense(d_k) -> s = q k^T / sqrt(d_k)
                      -> s v -> mean over L -> Dense(1)
  softmax-attention:  the same with softmax(s)

A step is what the C program's training step does: forward, the mean
sigmoid binary cross-entropy, backward, and torch.optim.Adam (b1 0.9, b2
0.999, eps 1e-8: optax.adam's update) on every parameter, the embedding
table included and as a dense gradient (nn.Embedding(sparse=False)), so
that every one of the 1.01 million numbers is updated at every step, as
optax does.

For each model, with 1 and then with 2 threads (torch.set_num_threads, and
the same for the OpenBLAS that Debian's torch calls, which keeps a thread
pool of its own): WARMUP untimed steps, then R repeats of N steps each; the
time of a step is a repeat's time divided by N. One line per measurement,
with every repeat's time (tests/bench/bench_train.c runs this script
several times, in turn with its own measurements, and pools them):

    torch <model> threads <t> ms_per_step min <x> median <y> repeats <R> steps <N> runs <r1,r2,...>

then one line naming the version: torch <version> with <BLAS library>.

PyTorch allocates its gradients and the temporaries of its Adam step anew
at every step, megabytes each; glibc hands blocks that large out with mmap
and gives them back with munmap, so that every step touches fresh pages,
and where a page fault is dear (a virtual machine) that can take most of the
step. The script asks glibc (mallopt) to keep such blocks for reuse instead,
which is what a user tuning PyTorch would do: the reference is PyTorch at
its best, not at its default.
"""
import argparse
import math
import time

# first: it sets OpenMP's waiting policy, which torch reads when it loads
from torch_timing import (keep_large_blocks, print_runs, print_version,  # isort: skip
                          set_blas_threads)
import torch
import torch.nn as nn
import torch.nn.functional as F

B, L, V, D, DK = 64, 32, 10002, 100, 32
WARMUP = 20


class Sentiment(nn.Module):
    """The three classifiers of sentiment.c in one module."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.embedding = nn.Embedding(V, D)                  # dense gradient
        width = D
        if kind != "baseline":
            self.q, self.k, self.v = nn.Linear(D, DK), nn.Linear(D, DK), nn.Linear(D, DK)
            width = DK
        self.out = nn.Linear(width, 1)

    def forward(self, ids):
        x = self.embedding(ids)                              # (B, L, d)
        if self.kind != "baseline":
            q, k, v = self.q(x), self.k(x), self.v(x)        # (B, L, d_k)
            s = q @ k.transpose(1, 2) / math.sqrt(DK)        # (B, L, L)
            w = s.softmax(dim=-1) if self.kind == "softmax-attention" else s
            x = w @ v                                        # (B, L, d_k)
        return self.out(x.mean(dim=1)).squeeze(-1)           # (B)


def time_model(kind, threads, steps, repeats):
    torch.set_num_threads(threads)
    set_blas_threads(threads)
    torch.manual_seed(42)
    model = Sentiment(kind)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
    zipf = 1.0 / torch.arange(1, V + 1, dtype=torch.float64)
    ids = torch.multinomial(zipf, (steps + WARMUP) * B * L, replacement=True).reshape(steps + WARMUP, B, L)
    labels = torch.randint(0, 2, (steps + WARMUP, B)).float()

    def step(i):
        opt.zero_grad()
        loss = F.binary_cross_entropy_with_logits(model(ids[i]), labels[i])
        loss.backward()
        opt.step()

    for i in range(WARMUP):
        step(i)
    per_step = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for i in range(steps):
            step(WARMUP + i)
        per_step.append((time.perf_counter() - t0) / steps * 1e3)
    return per_step


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=50, help="steps per repeat (50)")
    ap.add_argument("--repeats", type=int, default=5, help="repeats per measurement (5)")
    ap.add_argument("--models", default="baseline,notebook-attention,softmax-attention")
    args = ap.parse_args()
    kept = keep_large_blocks()
    torch.zeros(1) @ torch.zeros(1)  # loads the BLAS library
    for kind in args.models.split(","):
        for threads in (1, 2):
            runs = time_model(kind, threads, args.steps, args.repeats)
            print_runs(kind, threads, runs, args.repeats, args.steps)
    print_version(torch.__version__, kept)


if __name__ == "__main__":
    main()
