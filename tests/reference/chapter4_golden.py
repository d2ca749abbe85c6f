#!/usr/bin/env python3
"""chapter4_golden.py: write the PyTorch reference values for
tests/test_chapter4.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/chapter4_golden.py tests/golden

writes chapter4_seed<S>.txt into the given directory for each seed S of
SEEDS, each holding the two parts of src/programs/chapter4.c done in PyTorch from
torch.manual_seed(S):

  notebook  chapter 1's randint and nn.Embedding(20000, 32), the notebook's
            cells [T19]-[T20] (three torch.rand(8, 8) and q = u_q x ...),
            cell [T23] attention(q, k, v) and cell [T24]
            multi_head_attention(x, x, x, n_heads=3), then cell [T24] once
            more, in the notebook's own code.
  twin      chapter4_twin.py itself, run with the seed as its argument (its
            printing is discarded): the token ids, the embeddings, the
            nn.MultiheadAttention(32, 2) weights it drew, and its outputs and
            weights (averaged and per head) without and with the causal mask.
  biased    the twin's module with both biases set to random values
            (nn.MultiheadAttention starts them at zero, which would leave
            the C code's bias handling untested), the same six outputs.

File format: that of tests/golden.h (see goldenfile.py).
"""
import contextlib
import io
import os
import runpy
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import torch

from goldenfile import section, write
from transformers_notebook import (EMBEDDING_DIM, attention, multi_head_attention,
                                   parametrised_qkv)
from transformers_notebook import embedded_tokens as embedded_tokens_of

SEEDS = [3570563066, 0, 42]  # chapter4.c's DEFAULT_SEED, then two others
HERE = os.path.dirname(os.path.abspath(__file__))


def notebook(out, seed):
    """Cells [T19]-[T24] of the notebook, its code as written
    (transformers_notebook.py)."""
    tokenized_sentence, embedded_tokens = embedded_tokens_of(seed)
    u_q, u_k, u_v, q, k, v = parametrised_qkv(embedded_tokens)
    drawn = {}
    x = embedded_tokens
    attn_head_out = attention(q, k, v)                         # cell [T23]
    multi_head_attn_out = multi_head_attention(x, x, x, n_heads=3,
                                               drawn=drawn)    # [T24]
    section(out, "notebook_ids", tokenized_sentence)
    section(out, "notebook_x", x)
    section(out, "notebook_u_q", u_q)
    section(out, "notebook_head_out", attn_head_out)
    for name in ("u_q", "u_k", "u_v", "w_out"):
        section(out, f"notebook_mh_{name}", drawn[name])
    section(out, "notebook_mh_out", multi_head_attn_out)
    again = multi_head_attention(x, x, x, n_heads=3)           # [T24] again
    section(out, "notebook_mh_again_out", again)


def twin(out, seed):
    """chapter4_twin.py with the seed as its argument."""
    argv = sys.argv
    sys.argv = ["chapter4_twin.py", str(seed)]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            g = runpy.run_path(os.path.join(HERE, "chapter4_twin.py"))
    finally:
        sys.argv = argv
    mha, x, causal = g["mha"], g["x"], g["causal"]
    section(out, "twin_ids", g["ids"])
    section(out, "twin_x", x)
    section(out, "twin_in_proj_weight", mha.in_proj_weight)
    section(out, "twin_in_proj_bias", mha.in_proj_bias)
    section(out, "twin_out_proj_weight", mha.out_proj.weight)
    section(out, "twin_out_proj_bias", mha.out_proj.bias)
    outputs(out, "twin", mha, x, causal)
    # biases of either sign, so that the C code's biases are tested too
    with torch.no_grad():
        mha.in_proj_bias.copy_(torch.rand(3 * EMBEDDING_DIM) - 0.5)
        mha.out_proj.bias.copy_(torch.rand(EMBEDDING_DIM) - 0.5)
    section(out, "biased_in_proj_bias", mha.in_proj_bias)
    section(out, "biased_out_proj_bias", mha.out_proj.bias)
    outputs(out, "biased", mha, x, causal)


def outputs(out, prefix, mha, x, causal):
    with torch.no_grad():
        for suffix, mask in (("", None), ("_causal", causal)):
            o, w = mha(x, x, x, attn_mask=mask)
            _, per_head = mha(x, x, x, attn_mask=mask,
                              average_attn_weights=False)
            section(out, f"{prefix}_out{suffix}", o)
            section(out, f"{prefix}_weights{suffix}", w)
            section(out, f"{prefix}_head_weights{suffix}", per_head)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: chapter4_golden.py OUTPUT_DIRECTORY")
    os.makedirs(sys.argv[1], exist_ok=True)
    for seed in SEEDS:
        out = [
            f"# written by tests/reference/chapter4_golden.py, "
            f"torch {torch.__version__}, seed {seed}",
            "# notebook_*: cells [T19]-[T24] of the notebook from "
            f"torch.manual_seed({seed});",
            "# twin_*: chapter4_twin.py with the same seed; biased_*: its "
            "module with random biases",
        ]
        section(out, "seed", torch.tensor([seed]))
        with torch.no_grad():
            notebook(out, seed)
        twin(out, seed)
        path = os.path.join(sys.argv[1], f"chapter4_seed{seed}.txt")
        write(path, out)


if __name__ == "__main__":
    main()
