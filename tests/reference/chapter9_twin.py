#!/usr/bin/env python3
"""chapter9_twin.py: chapter 9's GPT (src/models/gpt.h) in torch.nn, from
the same initial weights and on the same batches as the C, printing its
first training losses.

    /usr/bin/python3 tests/reference/chapter9_twin.py --model INIT --ids IDS
        [--seed S] [--steps N] [--batch B] [--lr X] [--warmup N]
        [--decay-steps N] [--threads N]

INIT is a model file the C wrote before its first step (gpt_save's format:
the sizes, the vocabulary and every parameter), IDS the training text's
character ids as little-endian int32 (both from tests/bench/bench_gpt.c
--write-init INIT --write-ids IDS). The batches are drawn as the C draws
them (src/tasks/austen.h), nanoGPT's get_batch:
    ix = torch.randint(n - T, (B,), generator=torch.Generator().manual_seed(S))
with the same seed; each step's time is printed beside its loss (torch on
--threads threads, 1 by default). AdamW (betas 0.9, 0.99, weight decay 0.1 on the
matrices and embeddings only), the learning rate of lr_schedule.h (linear
warm-up, cosine decay to a tenth), gradients clipped to norm 1: the C's.

Imported by chapter9_golden.py for the model and the file reader.
"""
import argparse
import math
import struct
import sys
import time
import zlib

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

MAGIC = b"GPTCHAR\n"


class Attention(nn.Module):
    """Causal self-attention: c_attn is nn.MultiheadAttention's in_proj (the
    query rows, the key rows, the value rows); the queries are scaled by
    1/sqrt(d_k) before the product, as the C (and nn.MultiheadAttention)
    scale them."""

    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, d = x.shape
        dk = d // self.h
        q, k, v = self.c_attn(x).split(d, dim=2)
        heads = lambda t: t.view(B, T, self.h, dk).transpose(1, 2)  # noqa: E731
        q, k, v = heads(q) * (1.0 / math.sqrt(dk)), heads(k), heads(v)
        att = q @ k.transpose(-2, -1)
        mask = torch.ones(T, T, dtype=torch.bool).tril()
        att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, d)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c_fc = nn.Linear(d, 4 * d)
        self.gelu = nn.GELU(approximate="tanh")
        self.c_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d)
        self.attn = Attention(d, h)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """Its parameters() come in the C's block order (gpt.h); lm_head is wte."""

    def __init__(self, V, T, d, h, L):
        super().__init__()
        self.wte = nn.Embedding(V, d)
        self.wpe = nn.Embedding(T, d)
        self.h = nn.ModuleList(Block(d, h) for _ in range(L))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, V, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying

    def forward(self, idx, targets=None):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        if targets is None:
            return logits, None
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        return logits, loss


def c_name(name):
    """The C's name of a parameter (gpt.h): wte and wpe without .weight."""
    return name[:-len(".weight")] if name in ("wte.weight", "wpe.weight") else name


def read_c_model(path):
    """The model in a file of gpt_save's format: (GPT, vocabulary)."""
    data = open(path, "rb").read()
    if data[:8] != MAGIC:
        sys.exit(f"{path}: not a GPT model file")
    version, V, T, d, h, L = struct.unpack_from("<6I", data, 8)
    if version != 1:
        sys.exit(f"{path}: version {version}")
    if zlib.crc32(data[:-4]) != struct.unpack_from("<I", data, len(data) - 4)[0]:
        sys.exit(f"{path}: checksum mismatch")
    vocab = struct.unpack_from(f"<{V}I", data, 32)
    model = GPT(V, T, d, h, L)
    at = 32 + 4 * V
    with torch.no_grad():
        for p in model.parameters():
            n = p.numel()
            values = struct.unpack_from(f"<{n}d", data, at)
            p.copy_(torch.tensor(values, dtype=torch.float64).reshape(p.shape).float())
            at += 8 * n
    if at + 4 != len(data):
        sys.exit(f"{path}: {len(data)} bytes, the sizes make {at + 4}")
    return model, vocab


def lr_at(step, lr_max, lr_min, warmup, decay_steps):
    """src/layers/lr_schedule.h's rate of step (from 0)."""
    if step < warmup:
        return lr_max * (step + 1) / warmup
    if step >= decay_steps:
        return lr_min
    r = (step - warmup) / (decay_steps - warmup)
    return lr_min + 0.5 * (1.0 + math.cos(math.pi * r)) * (lr_max - lr_min)


def adamw(model, lr, betas, weight_decay):
    """torch.optim.AdamW with decay on the matrices and embeddings (2-d
    parameters), not on the biases and gains: the C's marks."""
    params = list(model.parameters())
    return torch.optim.AdamW(
        [{"params": [p for p in params if p.dim() >= 2], "weight_decay": weight_decay},
         {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}],
        lr=lr, betas=betas, eps=1e-8)


def train_step(model, opt, x, y, lr):
    """Forward, backward, clipping at 1, AdamW at lr: the loss before it
    and the gradients' norm before clipping."""
    for group in opt.param_groups:
        group["lr"] = lr
    opt.zero_grad(set_to_none=False)
    _, loss = model(x, y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss.item(), norm.item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--ids", required=True)
    ap.add_argument("--seed", type=int, default=1337)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--decay-steps", type=int, default=1500)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model, _ = read_c_model(args.model)
    T = model.wpe.weight.shape[0]
    raw = open(args.ids, "rb").read()
    ids = torch.from_numpy(np.frombuffer(raw, dtype="<i4").astype(np.int64))
    sched = dict(lr_max=args.lr, lr_min=args.lr / 10, warmup=args.warmup,
                 decay_steps=args.decay_steps)
    opt = adamw(model, args.lr, (0.9, 0.99), 0.1)
    g = torch.Generator().manual_seed(args.seed)
    for step in range(args.steps):
        ix = torch.randint(len(ids) - T, (args.batch,), generator=g)
        x = torch.stack([ids[i:i + T] for i in ix])
        y = torch.stack([ids[i + 1:i + T + 1] for i in ix])
        start = time.perf_counter()
        loss, _ = train_step(model, opt, x, y, lr_at(step, **sched))
        ms = 1e3 * (time.perf_counter() - start)
        print(f"step {step:5d}  loss {loss:.6f}  {ms:.1f} ms", flush=True)


if __name__ == "__main__":
    main()
