#!/usr/bin/env python3
"""bench_torch8.py: one training step of chapter 8's two models in
PyTorch, timed; the reference `make bench` holds the C step against.

Usage (Debian's python3-torch, with OpenBLAS, for /usr/bin/python3):

    /usr/bin/python3 tests/reference/bench_torch8.py [--steps N] [--repeats R]

The models, at the sizes ./chapter8 trains them:

  reversal     the encoder-decoder transformer that learns to reverse digits:
               chapter8_twin.py's Reverser (imported from it, so that both
               time the same module), sinusoidal positions; batches of
               B = 64 sequences, sources of 10 ids, targets of 11,
               nn.CrossEntropyLoss(ignore_index=PAD)
  transformer  the IMDb classifier: nn.Embedding(V = 10,002, d = 100) ->
               nn.Linear(d, 32) -> + sinusoidal positions (L = 32, width 32)
               -> nn.TransformerEncoderLayer(32, 2 heads, d_ff 64, ReLU,
               dropout 0, post-norm) -> mean over L -> nn.Linear(32, 1), the
               mean sigmoid binary cross-entropy; batches of B = 64 chunks of
               L = 32 ids drawn by Zipf's law, the law tests/bench/bench_chapter8.c
               draws by (id r with probability proportional to 1 / (r + 1)),
               the embedding trained with a dense gradient, as
               tests/reference/bench_torch.py does for chapter 7's models

A step is forward, the loss, backward, and torch.optim.Adam (lr 1e-3, b1
0.9, b2 0.999, eps 1e-8) on every parameter.

For each model, with 1 and then with 2 threads (torch.set_num_threads, and
the same for the OpenBLAS that Debian's torch calls): WARMUP untimed steps
(two at least, and no more once they have taken --max-seconds),
then R repeats of N steps each; the time of a step is a repeat's time
divided by its steps. A repeat stops early, after at least one step, once
it has taken --max-seconds: on a machine shared with other work, two
threads that wait for each other at every operation can make a step 10 to
40 times as slow as on one thread, and the better of the two is what
counts. One line per measurement, with every repeat's time (the C
side runs this script several times, in turn with its own measurements, and
pools them):

    torch <model> threads <t> ms_per_step min <x> median <y> repeats <R> steps <N> runs <r1,r2,...>

and, on one thread, the processor time of the same repeats, in ms per step
(what a step costs when the process runs, whatever else the machine does):

    torch_cpu <model> threads 1 runs <c1,c2,...>

then one line naming the versions: torch <version> with <BLAS>.

As bench_torch.py does, the script asks glibc (mallopt) to keep large
freed blocks for reuse rather than give them back to the system: the
reference is PyTorch at its best, not at its default.
"""
import argparse
import time

# first: it sets OpenMP's waiting policy, which torch reads when it loads
from torch_timing import (keep_large_blocks, print_runs, print_version,  # isort: skip
                          set_blas_threads)
import torch
import torch.nn as nn
import torch.nn.functional as F

import chapter8_twin as twin

WARMUP = 10
B = 64
V, D, W, L = 10002, 100, 32, 32        # the classifier's sizes
HEADS, D_FF = 2, 64


def sinusoids(n, d):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(d)
    angle = pos * 10000.0 ** (-2.0 * (i // 2).double() / d)
    return torch.where(i % 2 == 0, angle.sin(), angle.cos()).float()


class Classifier(nn.Module):
    """Chapter 8's IMDb transformer classifier."""

    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(V, D)
        self.project = nn.Linear(D, W)
        self.layer = nn.TransformerEncoderLayer(W, HEADS, D_FF, dropout=0.0, batch_first=True)
        self.out = nn.Linear(W, 1)
        self.register_buffer("pe", sinusoids(L, W))

    def forward(self, ids):
        x = self.project(self.embedding(ids)) + self.pe     # (B, L, w)
        return self.out(self.layer(x).mean(dim=1)).squeeze(-1)


def reversal_task(steps):
    """The model, its batches and its loss for steps steps."""
    torch.manual_seed(1)
    model = twin.Reverser(positions=True)
    g = torch.Generator().manual_seed(2)
    batches = [twin.encode(*twin.draw(g, B)) for _ in range(steps)]
    loss_fn = nn.CrossEntropyLoss(ignore_index=twin.PAD)

    def loss(i):
        src, tgt_in, tgt_out = batches[i]
        return loss_fn(model(src, tgt_in).reshape(-1, twin.V), tgt_out.reshape(-1))
    return model, loss


def classifier_task(steps):
    torch.manual_seed(42)
    model = Classifier()
    g = torch.Generator().manual_seed(2)
    zipf = 1.0 / torch.arange(1, V + 1, dtype=torch.float64)
    ids = torch.multinomial(zipf, steps * B * L, replacement=True, generator=g).reshape(steps, B, L)
    labels = torch.randint(0, 2, (steps, B), generator=g).float()

    def loss(i):
        return F.binary_cross_entropy_with_logits(model(ids[i]), labels[i])
    return model, loss


TASKS = {"reversal": reversal_task, "transformer": classifier_task}


def time_model(task, threads, steps, repeats, max_seconds):
    torch.set_num_threads(threads)
    set_blas_threads(threads)
    model, loss = TASKS[task](WARMUP + steps)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)

    def step(i):
        opt.zero_grad()
        loss(i).backward()
        opt.step()

    t0 = time.perf_counter()
    for i in range(WARMUP):
        if i > 1 and time.perf_counter() - t0 > max_seconds:
            break
        step(i)
    per_step, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        done = 0
        while done < steps and (done == 0 or time.perf_counter() - t0 < max_seconds):
            step(WARMUP + done)
            done += 1
        per_step.append((time.perf_counter() - t0) / done * 1e3)
        cpu.append((time.process_time() - c0) / done * 1e3)
    return per_step, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=50, help="steps per repeat (50)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats per measurement (3)")
    ap.add_argument("--max-seconds", type=float, default=3.0,
                    help="a repeat stops after this long, at least one step done (3)")
    ap.add_argument("--models", default="reversal,transformer")
    args = ap.parse_args()
    kept = keep_large_blocks()
    torch.zeros(1) @ torch.zeros(1)  # loads the BLAS library
    for task in args.models.split(","):
        for threads in (1, 2):
            runs, cpu = time_model(task, threads, args.steps, args.repeats, args.max_seconds)
            print_runs(task, threads, runs, args.repeats, args.steps)
            if threads == 1:
                print(f"torch_cpu {task} threads 1 runs {','.join(f'{c:.4f}' for c in cpu)}",
                      flush=True)
    print_version(torch.__version__, kept)


if __name__ == "__main__":
    main()
