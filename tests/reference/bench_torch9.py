#!/usr/bin/env python3
"""bench_torch9.py: chapter 9's GPT in PyTorch (chapter9_twin.py), timed:
the reference `make bench-gpt` holds the C's training step and generation
against (tests/bench/bench_gpt.c --bench, which writes the files it reads).

Usage (Debian's python3-torch, for /usr/bin/python3):

    /usr/bin/python3 tests/reference/bench_torch9.py --model INIT --ids IDS
        [--seed S] [--batch B] [--steps N] [--repeats R] [--gen MODEL ...]

  train        the twin's training step (chapter9_twin.train_step:
               forward, backward, clipping, AdamW) on the model in INIT
               (gpt_save's format), on batches of B windows drawn from the
               ids in IDS with the generator seeded with S, as the C draws
               them: one untimed step, then R runs of N steps; a run's
               time is its steps' mean (the batch's drawing not counted).
  generate-T   for each MODEL (a file of gpt_save's format, T its
               context), T - 1 tokens from a one-character prompt (id 0)
               with a cache of keys and values written the usual way:
               under torch.no_grad(), one position per call, each layer's
               past keys and values kept and grown with torch.cat, the next
               token drawn by torch.multinomial from the softmax of the
               logits (temperature 1). One untimed generation, then R; a
               run's time is its generation's divided by its tokens.

Each with 1 and then with 2 threads (torch.set_num_threads, and the same
for OpenBLAS), each starting again from the file and the seed. One line
per measurement, as tests/bench/bench.h reads them:

    torch <name> threads <t> ms_per_step min <x> median <y> repeats <R> steps <N> runs <r1,...>

(for generate-T a step is a token), then the versions: torch <version>
with <BLAS>.
"""
import argparse
import math
import time

# first: it sets OpenMP's waiting policy, which torch reads when it loads
from torch_timing import (keep_large_blocks, print_runs,  # isort: skip
                          print_version, set_blas_threads)
import numpy as np
import torch
import torch.nn.functional as F

import chapter9_twin as twin

# The C's (bench_gpt.c, as ./chapter9): AdamW's betas and weight decay, and
# the learning-rate schedule; the speed does not depend on them.
BETAS, WEIGHT_DECAY = (0.9, 0.99), 0.1
LR, WARMUP, DECAY = 4e-3, 50, 1500


def read_ids(path):
    raw = open(path, "rb").read()
    return torch.from_numpy(np.frombuffer(raw, dtype="<i4").astype(np.int64))


def time_training(args, ids):
    """R runs of N steps each, after one untimed step: ms a step."""
    model, _ = twin.read_c_model(args.model)
    T = model.wpe.weight.shape[0]
    opt = twin.adamw(model, LR, BETAS, WEIGHT_DECAY)
    g = torch.Generator().manual_seed(args.seed)
    step = 0

    def one_step():
        nonlocal step
        ix = torch.randint(len(ids) - T, (args.batch,), generator=g)
        x = torch.stack([ids[i:i + T] for i in ix])
        y = torch.stack([ids[i + 1:i + T + 1] for i in ix])
        start = time.perf_counter()
        twin.train_step(model, opt, x, y, twin.lr_at(step, LR, LR / 10, WARMUP, DECAY))
        step += 1
        return time.perf_counter() - start

    one_step()
    return [sum(one_step() for _ in range(args.steps)) / args.steps * 1e3
            for _ in range(args.repeats)]


def next_logits(model, idx, pos, past):
    """The logits (V) after token idx (a tensor of shape (1, 1)) at
    position pos, given past[l], block l's keys and values of the positions
    before (None at first); appends this position's to past."""
    x = model.wte(idx) + model.wpe(torch.tensor([pos]))
    for l, block in enumerate(model.h):
        attn = block.attn
        d = x.shape[-1]
        dk = d // attn.h
        q, k, v = attn.c_attn(block.ln_1(x)).split(d, dim=2)
        q, k, v = (t.view(1, 1, attn.h, dk).transpose(1, 2) for t in (q, k, v))
        if past[l] is not None:
            k = torch.cat([past[l][0], k], dim=2)
            v = torch.cat([past[l][1], v], dim=2)
        past[l] = (k, v)
        # one query, which sees every key so far: no mask
        w = F.softmax((q * (1.0 / math.sqrt(dk))) @ k.transpose(-2, -1), dim=-1)
        x = x + attn.c_proj((w @ v).transpose(1, 2).reshape(1, 1, d))
        x = x + block.mlp(block.ln_2(x))
    return model.lm_head(model.ln_f(x))[0, -1]


def generate(model, n_new, g, temperature=1.0):
    """n_new tokens after the prompt id 0, with the cache: the ids."""
    past = [None] * len(model.h)
    idx = torch.zeros(1, 1, dtype=torch.long)
    out = [0]
    with torch.no_grad():
        for pos in range(n_new):
            probs = F.softmax(next_logits(model, idx, pos, past) / temperature, dim=-1)
            idx = torch.multinomial(probs, 1, generator=g).view(1, 1)
            out.append(int(idx))
    return out


def time_generation(path, seed, repeats):
    """R generations of T - 1 tokens after an untimed one: ms a token."""
    model, _ = twin.read_c_model(path)
    model.eval()
    n_new = model.wpe.weight.shape[0] - 1
    g = torch.Generator().manual_seed(seed)
    generate(model, n_new, g)
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        generate(model, n_new, g)
        runs.append((time.perf_counter() - start) / n_new * 1e3)
    return runs, n_new


def positive(s):
    n = int(s)
    if n < 1:
        raise argparse.ArgumentTypeError(f"{s} is not a whole number from 1")
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True, help="the starting model (gpt_save's format)")
    ap.add_argument("--ids", required=True, help="the training ids (little-endian int32)")
    ap.add_argument("--seed", type=int, default=1337, help="the batches' seed (1337)")
    ap.add_argument("--batch", type=positive, default=32, help="windows a batch (32)")
    ap.add_argument("--steps", type=positive, default=3, help="steps a run (3)")
    ap.add_argument("--repeats", type=positive, default=3, help="runs a measurement (3)")
    ap.add_argument("--gen", nargs="*", default=[], metavar="MODEL",
                    help="models to generate with, one per context length")
    args = ap.parse_args()
    kept = keep_large_blocks()
    ids = read_ids(args.ids)
    torch.zeros(1) @ torch.zeros(1)  # loads the BLAS library
    for threads in (1, 2):
        torch.set_num_threads(threads)
        set_blas_threads(threads)
        print_runs("train", threads, time_training(args, ids), args.repeats,
                   args.steps)
        for path in args.gen:
            runs, n_new = time_generation(path, args.seed, args.repeats)
            print_runs(f"generate-{n_new + 1}", threads, runs, args.repeats, n_new)
    print_version(torch.__version__, kept)


if __name__ == "__main__":
    main()
