#!/usr/bin/env python3
"""chapter8_golden.py: write the PyTorch reference values for
tests/test_chapter8.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/chapter8_golden.py tests/golden

writes chapter8_seed<S>.txt into the given directory for each seed S of
SEEDS, each holding:

  draws    from torch.Generator().manual_seed(S), two batches of BATCH
           sequences as chapter8_twin.py draws them (lengths, then digits,
           then the next batch's lengths and digits), and the ids of the
           first batch: src, tgt_in, tgt_out.
  losses   the twin trained from torch.manual_seed(S), its batches from a
           generator seeded with S + 1, as ./chapter8 --seed S trains: the
           loss of each of the first STEPS steps, with the sinusoidal
           positions and without.

File format: that of tests/golden.h (see goldenfile.py).
"""
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import torch
import torch.nn as nn

import chapter8_twin as twin
from goldenfile import section, write

SEEDS = (1, 7)
STEPS = 20


def losses(seed, positions):
    torch.manual_seed(seed)
    model = twin.Reverser(positions=positions)
    g = torch.Generator().manual_seed(seed + 1)
    loss_fn = nn.CrossEntropyLoss(ignore_index=twin.PAD)
    opt = torch.optim.Adam(model.parameters(), lr=twin.LR)
    out = []
    for step in range(STEPS):
        for group in opt.param_groups:
            group["lr"] = twin.learning_rate(step)
        src, tgt_in, tgt_out = twin.encode(*twin.draw(g, twin.BATCH))
        loss = loss_fn(model(src, tgt_in).reshape(-1, twin.V), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return torch.tensor(out, dtype=torch.float32)


def write_seed(directory, seed):
    out = [f"# written by tests/reference/chapter8_golden.py, torch {torch.__version__}, "
           f"seed {seed}, batch {twin.BATCH}, d {twin.D}, heads {twin.HEADS}, "
           f"d_ff {twin.D_FF}, layers {twin.N_ENC} + {twin.N_DEC}, lr {twin.LR}, "
           f"warm-up {twin.WARMUP}"]
    g = torch.Generator().manual_seed(seed)
    lengths, digits = twin.draw(g, twin.BATCH)
    lengths2, digits2 = twin.draw(g, twin.BATCH)
    src, tgt_in, tgt_out = twin.encode(lengths, digits)
    section(out, "lengths", lengths)
    section(out, "digits", digits)
    section(out, "lengths2", lengths2)
    section(out, "digits2", digits2)
    section(out, "src", src)
    section(out, "tgt_in", tgt_in)
    section(out, "tgt_out", tgt_out)
    section(out, "losses_positions", losses(seed, True))
    section(out, "losses_none", losses(seed, False))
    path = os.path.join(directory, f"chapter8_seed{seed}.txt")
    write(path, out)


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else "tests/golden"
    torch.set_num_threads(1)
    for seed in SEEDS:
        write_seed(directory, seed)


if __name__ == "__main__":
    main()
