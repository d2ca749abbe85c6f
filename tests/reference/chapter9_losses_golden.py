#!/usr/bin/env python3
"""chapter9_losses_golden.py: the first training losses of chapter 9's GPT
in PyTorch (chapter9_twin.py) for tests/test_chapter9.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3), after
make all:

    /usr/bin/python3 tests/reference/chapter9_losses_golden.py \\
        build/bench/bench_gpt tests/golden

For each seed S of SEEDS, bench_gpt --seed S writes the C's starting model
and the training text's ids (--write-init, --write-ids: ./chapter9 --seed S
starts from the same model and draws the same batches); the twin trains
from them for STEPS steps as ./chapter9 trains (lr 4e-3 after 50 steps of
warm-up: the first 20 steps are all warm-up, whatever the number of steps
the cosine decays over). Writes chapter9_losses.txt, section
losses_seed<S> (STEPS float32 losses) for each seed.

File format: that of tests/golden.h (see goldenfile.py).
"""
import os
import subprocess
import sys
import tempfile

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import numpy as np
import torch

import chapter9_twin as twin
from goldenfile import section, write

SEEDS = (1337, 7)
STEPS = 20
LR, WARMUP, DECAY = 4e-3, 50, 1500


def losses(bench, seed, tmp):
    init, ids_file = os.path.join(tmp, "init.gpt"), os.path.join(tmp, "ids.bin")
    subprocess.run([bench, "--steps", "0", "--time-only", "--seed", str(seed),
                    "--write-init", init, "--write-ids", ids_file],
                   check=True, stdout=subprocess.DEVNULL)
    model, _ = twin.read_c_model(init)
    T = model.wpe.weight.shape[0]
    raw = open(ids_file, "rb").read()
    ids = torch.from_numpy(np.frombuffer(raw, dtype="<i4").astype(np.int64))
    opt = twin.adamw(model, LR, (0.9, 0.99), 0.1)
    g = torch.Generator().manual_seed(seed)
    out = []
    for step in range(STEPS):
        ix = torch.randint(len(ids) - T, (32,), generator=g)
        x = torch.stack([ids[i:i + T] for i in ix])
        y = torch.stack([ids[i + 1:i + T + 1] for i in ix])
        loss, _ = twin.train_step(model, opt, x, y,
                                  twin.lr_at(step, LR, LR / 10, WARMUP, DECAY))
        out.append(loss)
    return torch.tensor(out, dtype=torch.float32)


def main():
    bench, directory = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "tests/golden"
    torch.set_num_threads(1)
    out = [f"# written by tests/reference/chapter9_losses_golden.py, torch {torch.__version__}"]
    with tempfile.TemporaryDirectory() as tmp:
        for seed in SEEDS:
            section(out, f"losses_seed{seed}", losses(bench, seed, tmp))
    write(os.path.join(directory, "chapter9_losses.txt"), out)


if __name__ == "__main__":
    main()
