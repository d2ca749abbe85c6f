#!/usr/bin/env python3
"""chapter5_golden.py: write the PyTorch reference values for
tests/test_chapter5.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/chapter5_golden.py tests/golden

writes chapter5_seed<S>.txt into the given directory for each seed S of
SEEDS, each holding, from torch.manual_seed(S):

  notebook   chapter 1's randint and nn.Embedding(20000, 32), the draws of
             the notebook's cells [T19] and [T24], then its cells [T25] and
             [T26] in its own code: the encoder and decoder outputs and
             what they drew.
  twin       chapter5_twin.py itself, run with the seed as its argument (its
             printing is discarded): the token ids, the embeddings, every
             16th value of the weights its layers drew, and the encoder's and
             decoder's outputs and the cross-attention weights, post-norm and
             pre-norm.
  perturbed  the twin's layers with every bias and every LayerNorm gain and
             bias set to random values (PyTorch starts the attention biases
             at zero and the norms at gain 1, bias 0, which would leave
             those parts of the C code untested): the same outputs, both
             placements.
  layernorm  F.layer_norm over the last dimension of a (4, 32) tensor whose
             row 2 is constant, 0.75 (zero variance; its mean is exact in
             float, so PyTorch too gives exactly the bias) and row 3 is
             centred on 10,
             with and without a random gain and bias.

File format: that of tests/golden.h (see goldenfile.py).
"""
import contextlib
import io
import os
import runpy
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import torch
import torch.nn.functional as F

from goldenfile import section, write
from transformers_notebook import EMBEDDING_DIM, multi_head_attention, parametrised_qkv
from transformers_notebook import embedded_tokens as embedded_tokens_of


def every16(w):
    """Every 16th value of a weight, enough to check its draws and small
    enough to keep the golden file short."""
    return w.detach().flatten()[::16]

SEEDS = [3570563066, 0, 42]  # chapter5.c's DEFAULT_SEED, then two others
HERE = os.path.dirname(os.path.abspath(__file__))


def notebook(out, seed):
    """Cells [T25] and [T26] of the notebook, its code as written (with
    transformers_notebook.py)."""
    _, embedded_tokens = embedded_tokens_of(seed)
    parametrised_qkv(embedded_tokens)               # cells [T19]-[T20]

    multi_head_attention(embedded_tokens, embedded_tokens, embedded_tokens,
                         n_heads=3)                 # cell [T24]
    linears = []

    def transformer_encoder_layer(src_embedding, n_heads,
                                  causal_masking=False):
        x = multi_head_attention(src_embedding, src_embedding, src_embedding,
                                 n_heads)
        x = F.layer_norm(x + src_embedding, x.shape)
        linear_1 = torch.nn.Linear(EMBEDDING_DIM, 2 * EMBEDDING_DIM)
        linear_2 = torch.nn.Linear(2 * EMBEDDING_DIM, EMBEDDING_DIM)
        linears.append((linear_1, linear_2))
        x = x + F.relu(linear_2(linear_1(x)))
        return x

    def transformer_decoder_layer(src_embedding, target_embedding, n_heads,
                                  causal_masking=False):
        x = multi_head_attention(target_embedding, target_embedding,
                                 target_embedding, n_heads)
        x = F.layer_norm(x + target_embedding, x.shape)
        x = x + multi_head_attention(src_embedding, src_embedding, x, n_heads)
        x = F.layer_norm(x, x.shape)
        linear_1 = torch.nn.Linear(EMBEDDING_DIM, 2 * EMBEDDING_DIM)
        linear_2 = torch.nn.Linear(2 * EMBEDDING_DIM, EMBEDDING_DIM)
        linears.append((linear_1, linear_2))
        x = x + F.relu(linear_2(linear_1(x)))
        return x

    encoder_output = transformer_encoder_layer(embedded_tokens, n_heads=2)
    decoder_output = transformer_decoder_layer(embedded_tokens,
                                               embedded_tokens, n_heads=2)
    section(out, "notebook_x", embedded_tokens)
    section(out, "notebook_encoder_linear_1_weight_every16",
            every16(linears[0][0].weight))
    section(out, "notebook_encoder_linear_2_bias", linears[0][1].bias)
    section(out, "notebook_encoder_output", encoder_output)
    section(out, "notebook_decoder_linear_2_weight_every16",
            every16(linears[1][1].weight))
    section(out, "notebook_decoder_output", decoder_output)


def run_twin(seed):
    argv = sys.argv
    sys.argv = ["chapter5_twin.py", str(seed)]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return runpy.run_path(os.path.join(HERE, "chapter5_twin.py"))
    finally:
        sys.argv = argv


def cross_weights(decoder, tgt, memory, tgt_mask):
    """The decoder's cross-attention weights, averaged over the heads."""
    if decoder.norm_first:
        t = decoder.norm1(tgt)
        x = tgt + decoder.self_attn(t, t, t, attn_mask=tgt_mask)[0]
        x = decoder.norm2(x)
    else:
        x = decoder.norm1(tgt + decoder.self_attn(tgt, tgt, tgt,
                                                  attn_mask=tgt_mask)[0])
    return decoder.multihead_attn(x, memory, memory)[1]


def outputs(out, prefix, g):
    encoder, decoder = g["encoder"], g["decoder"]
    src, tgt, tgt_mask = g["src"], g["tgt"], g["tgt_mask"]
    for norm_first in (False, True):
        encoder.norm_first = decoder.norm_first = norm_first
        suffix = "_pre" if norm_first else ""
        memory = encoder(src)
        section(out, f"{prefix}_memory{suffix}", memory)
        section(out, f"{prefix}_out{suffix}",
                decoder(tgt, memory, tgt_mask=tgt_mask))
        section(out, f"{prefix}_cross{suffix}",
                cross_weights(decoder, tgt, memory, tgt_mask))
    encoder.norm_first = decoder.norm_first = False


def twin(out, seed):
    g = run_twin(seed)
    encoder, decoder = g["encoder"], g["decoder"]
    section(out, "twin_src_ids", g["src_ids"])
    section(out, "twin_tgt_ids", g["tgt_ids"])
    section(out, "twin_src", g["src"])
    section(out, "twin_tgt", g["tgt"])
    for name, w in (
            ("enc_in_proj_weight", encoder.self_attn.in_proj_weight),
            ("enc_linear1_weight", encoder.linear1.weight),
            ("dec_self_in_proj_weight", decoder.self_attn.in_proj_weight),
            ("dec_cross_in_proj_weight",
             decoder.multihead_attn.in_proj_weight),
            ("dec_cross_out_proj_weight",
             decoder.multihead_attn.out_proj.weight),
            ("dec_linear1_weight", decoder.linear1.weight)):
        section(out, f"twin_{name}_every16", every16(w))
    section(out, "twin_enc_linear2_bias", encoder.linear2.bias)
    section(out, "twin_dec_linear2_bias", decoder.linear2.bias)
    outputs(out, "twin", g)
    # every bias and norm parameter random, in this order: the encoder's
    # self_attn in_proj_bias, out_proj.bias, norm1 weight and bias, norm2
    # weight and bias; the decoder's self_attn and multihead_attn biases
    # likewise, then norm1, norm2, norm3
    params = []
    for layer, attns, norms in (
            (encoder, [encoder.self_attn], [encoder.norm1, encoder.norm2]),
            (decoder, [decoder.self_attn, decoder.multihead_attn],
             [decoder.norm1, decoder.norm2, decoder.norm3])):
        for a in attns:
            params += [a.in_proj_bias, a.out_proj.bias]
        for nrm in norms:
            params += [nrm.weight, nrm.bias]
    gains = [nrm.weight for nrm in (encoder.norm1, encoder.norm2,
                                     decoder.norm1, decoder.norm2,
                                     decoder.norm3)]
    values = []
    for p in params:
        v = torch.rand(p.shape) - 0.5
        if any(p is gain for gain in gains):
            v = v + 1.0                          # gains around one
        p.copy_(v)
        values.append(v)
    section(out, "perturbed_params", torch.cat(values))
    outputs(out, "perturbed", g)


def layernorm(out):
    x = torch.randn(4, EMBEDDING_DIM)
    x[2] = 0.75                  # equal values, whose float mean is exact
    x[3] = x[3] * 0.5 + 10.0                     # away from zero
    gain = torch.rand(EMBEDDING_DIM) + 0.5
    bias = torch.rand(EMBEDDING_DIM) - 0.5
    section(out, "layernorm_x", x)
    section(out, "layernorm_gain", gain)
    section(out, "layernorm_bias", bias)
    section(out, "layernorm_plain", F.layer_norm(x, (EMBEDDING_DIM,)))
    section(out, "layernorm_affine",
            F.layer_norm(x, (EMBEDDING_DIM,), gain, bias))
    section(out, "layernorm_whole", F.layer_norm(x, x.shape))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: chapter5_golden.py OUTPUT_DIRECTORY")
    os.makedirs(sys.argv[1], exist_ok=True)
    for seed in SEEDS:
        out = [
            f"# written by tests/reference/chapter5_golden.py, "
            f"torch {torch.__version__}, seed {seed}",
            "# notebook_*: cells [T25]-[T26] of the notebook from "
            f"torch.manual_seed({seed});",
            "# twin_*: chapter5_twin.py with the same seed; perturbed_*: its "
            "layers with random biases and norms;",
            "# layernorm_*: F.layer_norm on a (4, 32) tensor drawn after them",
        ]
        section(out, "seed", torch.tensor([seed]))
        with torch.no_grad():
            notebook(out, seed)
            twin(out, seed)
            layernorm(out)
        path = os.path.join(sys.argv[1], f"chapter5_seed{seed}.txt")
        write(path, out)


if __name__ == "__main__":
    main()
