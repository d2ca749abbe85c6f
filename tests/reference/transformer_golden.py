#!/usr/bin/env python3
"""transformer_golden.py: write PyTorch autograd's gradients of the
transformer layers and of a small encoder-decoder model, for
tests/test_transformer_golden.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/transformer_golden.py tests/golden

writes two files into the given directory.

transformer_grads.txt, the layers on their own (d 8, 2 heads, d_ff 16,
dropout 0, batch_first, float32, train mode, so that autograd runs the
plain path and not 1.13's fused inference kernel):

  enc_post, enc_pre   nn.TransformerEncoderLayer, post-norm and norm_first,
                      on x (B 2, n 5, d) with src_key_padding_mask hiding
                      the last 2 positions of sequence 1.
  dec_post, dec_pre   nn.TransformerDecoderLayer, post-norm and norm_first,
                      on tgt (2, 4, d) and memory (2, 5, d), with a causal
                      tgt_mask, a tgt_key_padding_mask hiding the last
                      position of sequence 1 and a memory_key_padding_mask
                      hiding the last 2 of sequence 1.

  Each layer is built after torch.manual_seed(SEED), then every bias and
  every LayerNorm gain and bias is set to random values (PyTorch starts
  them at 0 and 1, which would leave those parts of a forward pass
  untested). The loss is (out * R).sum() for a random R, so the gradient
  with respect to the output is R. Sections, under the case's prefix:
  <parameter> for each state_dict name, the inputs (x, or tgt and memory),
  R, the masks as 0/1 (1 = may not attend, as PyTorch's), out, and
  grad.<parameter> and grad.x (grad.tgt, grad.memory).

transformer_model.txt, one training step of the encoder-decoder model of
chapter 8 with d 8, h 2, d_ff 16, V 13, on the reversal task with N_MAX 4
(src padded to 4, tgt_in and tgt_out to 5, position tables of 5 rows) and
a batch of 3 sequences of lengths 4, 2 and 3. Seven models. With one
encoder and one decoder layer (model_<norm>_<pos>): post-norm and pre-norm
(norm_first, with the final LayerNorms enc_norm and dec_norm), each with
sinusoidal positions (Vaswani et al. 2017, 3.5, computed in double and
rounded to float as src/layers/positions.c does) and with learned ones (pos,
an nn.Embedding); and post-norm without positions. With two layers of
each, where a layer's input is another layer's output:
model2_post_sinusoidal and model2_pre_learned.

  Each model is built after torch.manual_seed(SEED) in this order, with
  PyTorch's own initial values: embedding nn.Embedding(V, d) (shared by
  source and target); pos nn.Embedding(5, d) for learned positions; enc.l
  an nn.TransformerEncoderLayer for each layer l; dec.l an
  nn.TransformerDecoderLayer for each layer l;
  enc_norm and dec_norm nn.LayerNorm(d) with norm_first (they draw
  nothing); generator nn.Linear(d, V). Then the batch's digits with
  torch.randint(0, 10, ...), each sequence in turn.

  x = embedding[id] + position[pos] (no sqrt(d) scaling); masks from the
  ids (src == PAD, tgt_in == PAD, causal). Loss: nn.CrossEntropyLoss
  (ignore_index 0, mean over the positions that are not PAD) of the
  logits (B, 5, V) against tgt_out. Sections, under the model's name:
  src, tgt_in, tgt_out (i64), positions (the table, sinusoidal only),
  init.<p>, logits, loss, the attention weights of that forward pass
  (B, heads, queries, keys) as attn.enc.<l>.self_attn,
  attn.dec.<l>.self_attn and attn.dec.<l>.multihead_attn, grad.<p>, after.<p> (after one
  torch.optim.Adam step, lr 1e-2, betas (0.9, 0.999), eps 1e-8) for every
  parameter p, as model.<p> in the state_dict. Then, with the updated
  parameters, greedy decoding of the three sources: from BOS alone, the
  decoder runs on the whole prefix and the most likely token (the lowest
  id on a tie) is appended, 5 tokens at most, PAD after EOS (greedy, i64,
  (B, 5)), and greedy_margin, the smallest gap between the best and the
  second-best logit among the tokens chosen (the script stops if it is
  below 1e-3: a near tie would make the choice depend on rounding).

File format: that of tests/golden.h (see goldenfile.py).
"""
import math
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import goldenfile  # noqa: E402


section = goldenfile.compact_section

SEED = 8
D, H, D_FF = 8, 2, 16
B = 2
N_ENC, N_TGT, N_MEM = 5, 4, 5

V = 13
PAD, BOS, EOS = 0, 1, 2
N_MAX = 4
LENGTHS = [4, 2, 3]
LR = 1e-2


def header(name, what):
    return [f"# {name}: {what} in",
            "# PyTorch " + torch.__version__ + "; written by tests/reference/transformer_golden.py",
            f"# seed {SEED}, d {D}, heads {H}, d_ff {D_FF}, dropout 0, float32"]


def perturb(layer):
    """Random biases and LayerNorm gains and biases."""
    with torch.no_grad():
        for name, p in layer.named_parameters():
            if name.endswith("bias"):
                p.copy_(0.5 * torch.randn(p.shape))
            elif name.startswith("norm") and name.endswith("weight"):
                p.copy_(1.0 + 0.5 * torch.randn(p.shape))


def write_case(out, prefix, layer, inputs, masks, forward):
    """Run forward with autograd, loss (out * R).sum(), and write it all."""
    for name, p in layer.state_dict().items():
        section(out, f"{prefix}.{name}", p)
    for name, t in inputs.items():
        t.requires_grad_(True)
        section(out, f"{prefix}.{name}", t)
    result = forward()
    r = torch.randn(result.shape)
    for name, m in masks.items():
        section(out, f"{prefix}.{name}", m.long())
    section(out, f"{prefix}.R", r)
    assert not torch.isnan(result).any(), prefix + ": NaN in the output"
    section(out, f"{prefix}.out", result)
    (result * r).sum().backward()
    for name, p in layer.named_parameters():
        section(out, f"{prefix}.grad.{name}", p.grad)
    for name, t in inputs.items():
        section(out, f"{prefix}.grad.{name}", t.grad)


def encoder_case(out, prefix, norm_first):
    torch.manual_seed(SEED)
    layer = nn.TransformerEncoderLayer(D, H, D_FF, dropout=0.0, batch_first=True,
                                       norm_first=norm_first)
    layer.train()
    perturb(layer)
    x = torch.randn(B, N_ENC, D)
    pad = torch.zeros(B, N_ENC, dtype=torch.bool)
    pad[1, -2:] = True
    write_case(out, prefix, layer, {"x": x}, {"src_key_padding_mask": pad},
               lambda: layer(x, src_key_padding_mask=pad))


def decoder_case(out, prefix, norm_first):
    torch.manual_seed(SEED)
    layer = nn.TransformerDecoderLayer(D, H, D_FF, dropout=0.0, batch_first=True,
                                       norm_first=norm_first)
    layer.train()
    perturb(layer)
    tgt = torch.randn(B, N_TGT, D)
    memory = torch.randn(B, N_MEM, D)
    causal = torch.triu(torch.ones(N_TGT, N_TGT, dtype=torch.bool), diagonal=1)
    tgt_pad = torch.zeros(B, N_TGT, dtype=torch.bool)
    tgt_pad[1, -1:] = True
    mem_pad = torch.zeros(B, N_MEM, dtype=torch.bool)
    mem_pad[1, -2:] = True
    write_case(out, prefix, layer, {"tgt": tgt, "memory": memory},
               {"tgt_mask": causal, "tgt_key_padding_mask": tgt_pad,
                "memory_key_padding_mask": mem_pad},
               lambda: layer(tgt, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                             memory_key_padding_mask=mem_pad))


def positions_sinusoidal(n, d):
    """src/layers/positions.c's table: each angle in double (libm's pow, sin and
    cos, as the C code calls them), rounded to float."""
    pe = np.zeros((n, d), dtype=np.float32)
    for pos in range(n):
        for c in range(d):
            angle = pos * math.pow(10000.0, -2.0 * (c // 2) / d)
            pe[pos, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return torch.from_numpy(pe)


class Seq2Seq(nn.Module):
    """The encoder-decoder model, its modules built in the order listed in
    the docstring at the top."""

    def __init__(self, norm_first, positions, n_pos, layers):
        super().__init__()
        self.embedding = nn.Embedding(V, D)
        if positions == "learned":
            self.pos = nn.Embedding(n_pos, D)
        elif positions == "sinusoidal":
            self.register_buffer("table", positions_sinusoidal(n_pos, D), persistent=False)
        self.positions = positions
        self.enc = nn.ModuleList([nn.TransformerEncoderLayer(
            D, H, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first)
            for _ in range(layers)])
        self.dec = nn.ModuleList([nn.TransformerDecoderLayer(
            D, H, D_FF, dropout=0.0, batch_first=True, norm_first=norm_first)
            for _ in range(layers)])
        self.norm_first = norm_first
        if norm_first:
            self.enc_norm = nn.LayerNorm(D)
            self.dec_norm = nn.LayerNorm(D)
        self.generator = nn.Linear(D, V)

    def embed(self, ids):
        if self.positions == "none":
            return self.embedding(ids)
        table = self.pos.weight if self.positions == "learned" else self.table
        return self.embedding(ids) + table[:ids.shape[1]]

    def forward(self, src, tgt_in):
        src_pad = src == PAD
        tgt_pad = tgt_in == PAD
        n = tgt_in.shape[1]
        causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        memory = self.embed(src)
        for layer in self.enc:
            memory = layer(memory, src_key_padding_mask=src_pad)
        if self.norm_first:
            memory = self.enc_norm(memory)
        y = self.embed(tgt_in)
        for layer in self.dec:
            y = layer(y, memory, tgt_mask=causal, tgt_key_padding_mask=tgt_pad,
                      memory_key_padding_mask=src_pad)
        if self.norm_first:
            y = self.dec_norm(y)
        return self.generator(y)


def reversal_batch():
    """src, tgt_in, tgt_out (B, N_MAX) and (B, N_MAX + 1) for the digits
    torch.randint draws, one sequence of each length of LENGTHS in turn."""
    src = torch.full((len(LENGTHS), N_MAX), PAD, dtype=torch.long)
    tgt_in = torch.full((len(LENGTHS), N_MAX + 1), PAD, dtype=torch.long)
    tgt_out = torch.full((len(LENGTHS), N_MAX + 1), PAD, dtype=torch.long)
    for b, n in enumerate(LENGTHS):
        ids = torch.randint(0, 10, (n,)) + 3
        src[b, :n] = ids
        tgt_in[b, 0] = BOS
        tgt_in[b, 1:n + 1] = ids.flip(0)
        tgt_out[b, :n] = ids.flip(0)
        tgt_out[b, n] = EOS
    return src, tgt_in, tgt_out


def attention_maps(model, src, tgt_in):
    """The attention weights (B, heads, queries, keys) of every attention of
    the model on this batch: the inputs each nn.MultiheadAttention gets in
    the forward pass, run once more asking for the weights of each head."""
    n = tgt_in.shape[1]
    causal = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
    masks = {}
    for l in range(len(model.enc)):
        masks[f"enc.{l}.self_attn"] = (None, src == PAD)
    for l in range(len(model.dec)):
        masks[f"dec.{l}.self_attn"] = (causal, tgt_in == PAD)
        masks[f"dec.{l}.multihead_attn"] = (None, src == PAD)
    seen = {}
    hooks = [model.get_submodule(name).register_forward_hook(
        lambda mod, args, result, name=name: seen.__setitem__(name, args))
        for name in masks]
    with torch.no_grad():
        model(src, tgt_in)
    for h in hooks:
        h.remove()
    maps = {}
    with torch.no_grad():
        for name, (attn_mask, key_pad) in masks.items():
            module = model.get_submodule(name)
            q, k, v = seen[name][:3]
            _, w = module(q, k, v, attn_mask=attn_mask, key_padding_mask=key_pad,
                          need_weights=True, average_attn_weights=False)
            maps[name] = w
    return maps


def greedy(model, src, max_len):
    """Greedy decoding from BOS: tokens (B, max_len) after BOS, EOS
    included, then PAD; and the smallest gap between the best and the
    second-best logit of a token chosen."""
    out = torch.full((src.shape[0], max_len), PAD, dtype=torch.long)
    done = torch.zeros(src.shape[0], dtype=torch.bool)
    margin = float("inf")
    with torch.no_grad():
        for length in range(1, max_len + 1):
            prefix = torch.cat([torch.full((src.shape[0], 1), BOS, dtype=torch.long),
                                out[:, :length - 1]], dim=1)
            last = model(src, prefix)[:, -1]
            top = last.topk(2, dim=-1)
            for b in range(src.shape[0]):
                if done[b]:
                    continue
                out[b, length - 1] = int(last[b].argmax())
                margin = min(margin, float(top.values[b, 0] - top.values[b, 1]))
                done[b] = out[b, length - 1] == EOS
            if done.all():
                break
    return out, margin


def model_case(out, norm_first, positions, layers=1):
    prefix = "model{}_{}_{}".format("" if layers == 1 else layers,
                                    "pre" if norm_first else "post", positions)
    torch.manual_seed(SEED)
    model = Seq2Seq(norm_first, positions, N_MAX + 1, layers)
    model.train()
    src, tgt_in, tgt_out = reversal_batch()
    section(out, f"{prefix}.src", src)
    section(out, f"{prefix}.tgt_in", tgt_in)
    section(out, f"{prefix}.tgt_out", tgt_out)
    if positions == "sinusoidal":
        section(out, f"{prefix}.positions", model.table)
    names = [n for n, _ in model.named_parameters()]
    for name, p in model.named_parameters():
        section(out, f"{prefix}.init.model.{name}", p)
    opt = torch.optim.Adam(model.parameters(), lr=LR, betas=(0.9, 0.999), eps=1e-8)
    logits = model(src, tgt_in)
    assert not torch.isnan(logits).any(), prefix + ": NaN in the logits"
    loss = nn.CrossEntropyLoss(ignore_index=PAD)(logits.reshape(-1, V), tgt_out.reshape(-1))
    opt.zero_grad()
    loss.backward()
    section(out, f"{prefix}.logits", logits)
    section(out, f"{prefix}.loss", loss.reshape(1))
    for name, w in attention_maps(model, src, tgt_in).items():
        section(out, f"{prefix}.attn.{name}", w)
    params = dict(model.named_parameters())
    for name in names:
        section(out, f"{prefix}.grad.model.{name}", params[name].grad)
    opt.step()
    for name in names:
        section(out, f"{prefix}.after.model.{name}", params[name])
    tokens, margin = greedy(model, src, N_MAX + 1)
    assert margin > 1e-3, f"{prefix}: greedy decoding meets a near tie ({margin})"
    section(out, f"{prefix}.greedy", tokens)
    section(out, f"{prefix}.greedy_margin", torch.tensor([margin], dtype=torch.float32))


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/golden"
    lines = header("transformer_grads.txt",
                   "the gradients of the encoder and decoder layers")
    lines.append(f"# B {B}, encoder n {N_ENC}, decoder tgt n {N_TGT}, memory n {N_MEM}; "
                 "loss (out * R).sum(); biases and LayerNorm parameters random")
    encoder_case(lines, "enc_post", False)
    encoder_case(lines, "enc_pre", True)
    decoder_case(lines, "dec_post", False)
    decoder_case(lines, "dec_pre", True)
    goldenfile.write(os.path.join(out_dir, "transformer_grads.txt"), lines)

    lines = header("transformer_model.txt",
                   "one Adam step of the encoder-decoder reversal model")
    lines.append(f"# V {V}, 1 or 2 encoder and decoder layers, N_MAX {N_MAX} (src {N_MAX}, "
                 f"tgt {N_MAX + 1}, 5 positions), lengths {LENGTHS}, lr {LR}")
    for norm_first in (False, True):
        for positions in ("sinusoidal", "learned"):
            model_case(lines, norm_first, positions)
    model_case(lines, False, "none")
    model_case(lines, False, "sinusoidal", layers=2)
    model_case(lines, True, "learned", layers=2)
    goldenfile.write(os.path.join(out_dir, "transformer_model.txt"), lines)


if __name__ == "__main__":
    main()
