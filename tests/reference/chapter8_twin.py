# chapter8_twin.py: chapter 8's reversal model in torch.nn, from the same
# initial weights and the same batches as ./chapter8, printing the losses of
# the first training steps with positions and without, as block [P8.4].
#
#   /usr/bin/python3 tests/reference/chapter8_twin.py [--seed N] [--steps N]
#   /usr/bin/python3 tests/reference/chapter8_twin.py --evaluate [--seed N] [--steps N]
#                                                     [--no-positions]
#
# With --evaluate it trains all the steps and then decodes the held-out
# sequences greedily, as ./chapter8 does, and prints the exact-match
# accuracy.
import argparse
import math
import time

import numpy as np
import torch
import torch.nn as nn

PAD, BOS, EOS, DIGIT0, V = 0, 1, 2, 3, 13   # digit k is the id 3 + k
N_MAX = 10                                  # digits per sequence, at most
T = N_MAX + 1                               # target length: + BOS or EOS
D, HEADS, D_FF, N_ENC, N_DEC = 64, 4, 256, 2, 2
BATCH, LR, WARMUP = 64, 1e-3, 100
TEST_SIZE = 4000


def sinusoids(n, d):
    """The sinusoidal encoding of positions 0 .. n-1, in double, then float."""
    pos = np.arange(n)[:, None]
    freq = 10000.0 ** (-2.0 * (np.arange(d) // 2) / d)
    angle = pos * freq[None, :]
    pe = np.where(np.arange(d) % 2 == 0, np.sin(angle), np.cos(angle))
    return torch.tensor(pe, dtype=torch.float32)


#> model
class Reverser(nn.Module):
    def __init__(self, positions):
        super().__init__()
        self.embedding = nn.Embedding(V, D)   # source and target share it
        layer = dict(dropout=0.0, batch_first=True)
        # built one by one: nn.TransformerEncoder would deep-copy one layer
        self.enc = nn.ModuleList(
            nn.TransformerEncoderLayer(D, HEADS, D_FF, **layer)
            for _ in range(N_ENC))
        self.dec = nn.ModuleList(
            nn.TransformerDecoderLayer(D, HEADS, D_FF, **layer)
            for _ in range(N_DEC))
        self.generator = nn.Linear(D, V)
        self.register_buffer("pe", sinusoids(T, D) if positions
                             else torch.zeros(T, D))

    def embed(self, ids):
        return self.embedding(ids) + self.pe[:ids.shape[1]]

    def encode(self, src):
        pad = src == PAD
        x = self.embed(src)
        for layer in self.enc:
            x = layer(x, src_key_padding_mask=pad)
        return x, pad

    def decode(self, tgt_in, memory, src_pad):
        n = tgt_in.shape[1]
        causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        y = self.embed(tgt_in)
        for layer in self.dec:
            y = layer(y, memory, tgt_mask=causal,
                      tgt_key_padding_mask=tgt_in == PAD,
                      memory_key_padding_mask=src_pad)
        return self.generator(y)              # (B, n, V) logits

    def forward(self, src, tgt_in):
        memory, src_pad = self.encode(src)
        return self.decode(tgt_in, memory, src_pad)
#< model


def encode(lengths, digits):
    """src (B, N_MAX), tgt_in and tgt_out (B, T) of the sequences drawn."""
    B = len(lengths)
    src = torch.zeros(B, N_MAX, dtype=torch.long)
    tgt_in = torch.zeros(B, T, dtype=torch.long)
    tgt_out = torch.zeros(B, T, dtype=torch.long)
    for b in range(B):
        n = int(lengths[b])
        ids = digits[b, :n] + DIGIT0
        src[b, :n] = ids
        tgt_out[b, :n] = ids.flip(0)
        tgt_out[b, n] = EOS
        tgt_in[b, 0] = BOS
        tgt_in[b, 1:n + 1] = ids.flip(0)
    return src, tgt_in, tgt_out


def draw(g, B):
    """B sequences: lengths first, then ten digits for each."""
    lengths = torch.randint(1, N_MAX + 1, (B,), generator=g)
    digits = torch.randint(0, 10, (B, N_MAX), generator=g)
    return lengths, digits


def learning_rate(step):
    """Linear warm-up over the first WARMUP steps, then constant."""
    return LR * min(1.0, (step + 1) / WARMUP)


@torch.no_grad()
def greedy(model, src):
    memory, src_pad = model.encode(src)
    out = torch.full((src.shape[0], 1), BOS, dtype=torch.long)
    for _ in range(T):
        logits = model.decode(out, memory, src_pad)
        out = torch.cat([out, logits[:, -1].argmax(-1, keepdim=True)], 1)
    return out[:, 1:]


def exact(out, tgt_out):
    """Whether each decoded row equals its target up to and including EOS."""
    upto = torch.cumsum((tgt_out == EOS).long(), 1) - (tgt_out == EOS).long()
    return ((out == tgt_out) | (upto > 0)).all(1)


#> train
def train(seed, steps, positions, evaluate=False):
    """The losses of the first steps, printed as they come with evaluate."""
    torch.manual_seed(seed)
    model = Reverser(positions)
    train_g = torch.Generator().manual_seed(seed + 1)
    loss_fn = nn.CrossEntropyLoss(ignore_index=PAD)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    losses = []
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = learning_rate(step)
        src, tgt_in, tgt_out = encode(*draw(train_g, BATCH))
        logits = model(src, tgt_in)
        loss = loss_fn(logits.reshape(-1, V), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if evaluate and step % 100 == 0:
            print(f"step {step + 1:4d}  loss {loss.item():.6f}", flush=True)
    return model, losses
#< train


def ordinal(n):
    """n as 1st, 2nd, 3rd, 4th...: a step's name that pair_cells.py does not
    read as a number, so that it compares the losses alone."""
    ones = {1: "st", 2: "nd", 3: "rd"}
    return f"{n}{'th' if n % 100 in (11, 12, 13) else ones.get(n % 10, 'th')}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--no-positions", action="store_true")
    p.add_argument("--evaluate", action="store_true")
    a = p.parse_args()
    torch.set_num_threads(1)
    if not a.evaluate:                    # both models, as block [P8.4]
        _, with_pe = train(a.seed, a.steps, positions=True)
        _, without = train(a.seed, a.steps, positions=False)
        print("[P8.4] the losses of the first steps")
        print("step  with positions  without")
        for step, (l1, l2) in enumerate(zip(with_pe, without)):
            print(f"{ordinal(step + 1):>4}  {l1:14.6f}  {l2:.6f}")
        return
    started = time.time()
    model, _ = train(a.seed, a.steps, not a.no_positions, evaluate=True)
    test_g = torch.Generator().manual_seed(a.seed + 2)
    lengths, digits = draw(test_g, TEST_SIZE)
    src, _, tgt_out = encode(lengths, digits)
    model.eval()
    ok = exact(greedy(model, src), tgt_out)
    print(f"{time.time() - started:.1f} s; exact match "
          f"{ok.float().mean().item():.4f}")
    for n in range(1, N_MAX + 1):
        print(n, f"{ok[lengths == n].float().mean().item():.3f}")


if __name__ == "__main__":
    main()
