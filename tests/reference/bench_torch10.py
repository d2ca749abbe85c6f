#!/usr/bin/env python3
"""bench_torch10.py: attention of one head written the usual way in
PyTorch, timed; the reference `make bench` holds chapter 10's tiled
attention against (tests/bench/bench_chapter10.c).

Usage (Debian's python3-torch, for /usr/bin/python3):

    /usr/bin/python3 tests/reference/bench_torch10.py [--steps N] [--repeats R]

q, k, v of shape (n, 64), float32, drawn from torch.randn, for n = 1024,
2048, 4096 and 8192; attention is softmax(q @ k.T / sqrt(64)) @ v, as a
reader would write it (Debian's PyTorch 1.13 has no fused kernel for it):

  forward-N   the forward under torch.no_grad() (no graph kept)
  train-N     the forward with autograd, then .backward(dout) with a
              random dout: the gradients of q, k and v

For each, with 1 and then with 2 threads (torch.set_num_threads, and the
same for the OpenBLAS torch calls): one untimed pass, then R repeats of
N passes each; a pass's time is a repeat's time divided by its passes.
One line per measurement, as tests/bench/bench.h reads them:

    torch <name> threads <t> ms_per_step min <x> median <y> repeats <R> steps <N> runs <r1,...>

then one line naming the versions: torch <version> with <BLAS>.
"""
import argparse
import math
import time

# first: it sets OpenMP's waiting policy, which torch reads when it loads
from torch_timing import keep_large_blocks, print_runs, print_version, set_blas_threads
import torch

D = 64
SIZES = (1024, 2048, 4096, 8192)


def attention(q, k, v):
    return torch.softmax(q @ k.T / math.sqrt(D), dim=-1) @ v


def one_pass(q, k, v, dout, train):
    if not train:
        with torch.no_grad():
            attention(q, k, v)
        return
    for t in (q, k, v):
        t.grad = None
    attention(q, k, v).backward(dout)


def time_pass(n, train, threads, steps, repeats):
    torch.set_num_threads(threads)
    set_blas_threads(threads)
    g = torch.Generator().manual_seed(1)
    q, k, v, dout = (torch.randn(n, D, generator=g) for _ in range(4))
    for t in (q, k, v):
        t.requires_grad_(train)
    one_pass(q, k, v, dout, train)
    runs = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(steps):
            one_pass(q, k, v, dout, train)
        runs.append((time.perf_counter() - t0) / steps * 1e3)
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=3, help="passes per repeat (3)")
    ap.add_argument("--repeats", type=int, default=3, help="repeats per measurement (3)")
    args = ap.parse_args()
    kept = keep_large_blocks()
    torch.zeros(1) @ torch.zeros(1)  # loads the BLAS library
    for train in (False, True):
        for n in SIZES:
            name = f"{'train' if train else 'forward'}-{n}"
            for threads in (1, 2):
                runs = time_pass(n, train, threads, args.steps, args.repeats)
                print_runs(name, threads, runs, args.repeats, args.steps)
    print_version(torch.__version__, kept)


if __name__ == "__main__":
    main()
