#!/usr/bin/env python3
"""rng_golden.py: write the PyTorch reference values for tests/test_rng.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/rng_golden.py tests/golden

writes rng_seed0.txt, rng_seed42.txt and rng_seed1234.txt into the given
directory. Each file holds named sections; each section starts from a fresh
torch.manual_seed(seed) unless its name starts with "seq_" (one seed, then
the seq_ sections in file order, to prove the state carries over).

File format:
    # comment lines
    section <name> <kind> <count>
    <count> values, up to 8 per line
kind f32: float32 values in the shortest decimal that reads back (strtof)
          to exactly the same float; i64: integers.
"""
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import numpy as np
import torch
import torch.nn as nn

from goldenfile import section, write

SEEDS = (0, 42, 1234)


def write_seed(directory, seed):
    out = [
        f"# written by tests/reference/rng_golden.py, torch {torch.__version__}, seed {seed}",
        "# each section starts from a fresh torch.manual_seed(seed), except the",
        "# seq_ sections: one manual_seed, then those calls in file order",
    ]

    def fresh(name, make):
        torch.manual_seed(seed)
        section(out, name, make())

    fresh("rand_5", lambda: torch.rand(5))
    fresh("rand_100", lambda: torch.rand(100))
    # Seeds are taken modulo 2^32: this must equal rand_5.
    torch.manual_seed(seed + 2**32)
    section(out, "rand_5_seed_plus_2pow32", torch.rand(5))
    fresh("randint_0_20000_8", lambda: torch.randint(0, 20000, (8,)))
    fresh("randint_0_10_1000", lambda: torch.randint(0, 10, (1000,)))
    fresh("randint_m5_5_16", lambda: torch.randint(-5, 5, (16,)))
    # A range of 2^32 or more takes two draws per value.
    fresh("randint_0_2pow40_8", lambda: torch.randint(0, 2**40, (8,)))
    # The edges of that rule and ranges beyond 2^32: 2^32 - 1 is the last
    # range of one draw, 2^32 the first of two; then ranges in (2^32, 2^33),
    # one that starts below zero, and the widest, where lo + draw % range
    # wraps past 2^63 in unsigned arithmetic.
    for name, lo, hi in (("0_2pow32m1", 0, 2**32 - 1), ("0_2pow32", 0, 2**32),
                         ("0_2pow32p1", 0, 2**32 + 1), ("0_2pow33m1", 0, 2**33 - 1),
                         ("m2pow32_2pow32", -2**32, 2**32), ("0_3x2pow32p7", 0, 3 * 2**32 + 7),
                         ("2pow40_2pow40p2pow32", 2**40, 2**40 + 2**32),
                         ("0_2pow62", 0, 2**62), ("int64_min_max", -2**63, 2**63 - 1)):
        fresh(f"randint_{name}_8", lambda: torch.randint(lo, hi, (8,)))
    for n in (1, 5, 15, 16, 17, 100, 1000):
        fresh(f"randn_{n}", lambda: torch.randn(n))
    # normal_() on a tensor is the same call as randn.
    fresh("normal_17", lambda: torch.empty(17).normal_())

    torch.manual_seed(seed)
    emb = nn.Embedding(20000, 32)
    section(out, "embedding_20000_32_rows_0_2", emb.weight[0:3])
    section(out, "embedding_20000_32_row_19999", emb.weight[19999])

    torch.manual_seed(seed)
    lin = nn.Linear(10, 10)
    section(out, "linear_10_10_weight", lin.weight)
    section(out, "linear_10_10_bias", lin.bias)
    torch.manual_seed(seed)
    lin = nn.Linear(7, 5, bias=False)
    section(out, "linear_7_5_nobias_weight", lin.weight)

    fresh("randperm_10", lambda: torch.randperm(10))
    fresh("randperm_1000", lambda: torch.randperm(1000))
    # The edge cases: n = 0 and 1 (nothing to shuffle) and 2 and 3, each
    # followed by rand(2), which shows how many draws the permutation took.
    for n in range(4):
        torch.manual_seed(seed)
        section(out, f"randperm_{n}", torch.randperm(n))
        section(out, f"randperm_{n}_then_rand_2", torch.rand(2))
    fresh("uniform_m0.3_0.7_50", lambda: torch.empty(50).uniform_(-0.3, 0.7))

    def xavier():
        w = torch.empty(96, 32)
        nn.init.xavier_uniform_(w)
        return w
    fresh("xavier_uniform_96_32", xavier)

    # One seed, then several calls in a row. randn(5) leaves the sine of its
    # third pair cached; randn(20) (16 or more) neither uses nor clears it;
    # the final randn(1) returns it without drawing.
    torch.manual_seed(seed)
    section(out, "seq_rand_3", torch.rand(3))
    section(out, "seq_randn_5", torch.randn(5))
    section(out, "seq_randn_20", torch.randn(20))
    section(out, "seq_randint_0_100_4", torch.randint(0, 100, (4,)))
    section(out, "seq_rand_2", torch.rand(2))
    section(out, "seq_randn_1", torch.randn(1))

    path = os.path.join(directory, f"rng_seed{seed}.txt")
    write(path, out)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: rng_golden.py OUTPUT_DIRECTORY")
    os.makedirs(sys.argv[1], exist_ok=True)
    for seed in SEEDS:
        write_seed(sys.argv[1], seed)


if __name__ == "__main__":
    main()
