#!/usr/bin/env python3
"""chapter3_golden.py: write the PyTorch reference values for
tests/test_chapter3.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/chapter3_golden.py tests/golden

writes chapter3_seed3570563066_74104689.txt into the given directory: the
three parts of src/programs/chapter3.c done in PyTorch, with the generator used in the
same order as the C program, and each part seeded as the program seeds it
without --seed:

  part 1  the worked example (no random numbers): the float32 softmax of the
          scores, unscaled and scaled by sqrt(3), and the exact outputs.
  part 2  torch.manual_seed(seed); chapter 1's randint and nn.Embedding(20000,
          32); then the notebook's three torch.rand(8, 8) and the parametrised
          attention; then three nn.Linear(32, 16, bias=False) for the standard
          form q = x W_q.
  part 3  torch.manual_seed(MODULE_SEED), another notebook with its own
          seed; the toy tokenizer with its words in the Python set order the
          notebook printed (set order changes from run to run, so it is
          written out, in chapter3_notebook.py, as in the C program);
          nn.Embedding(11, 10);
          Attention(10, 10); then cell [6]'s fresh Q, K, V and cell [7].

File format (that of tests/golden.h):
    # comment lines
    section <name> <kind> <count>
    <count> values, up to 8 per line
kind f32: float32 values in the shortest decimal that reads back (strtof)
          to exactly the same float; i64: integers.
"""
import math
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import torch
import torch.nn as nn
import torch.nn.functional as F

from goldenfile import section, write
from transformers_notebook import embedded_tokens as embedded_tokens_of
from transformers_notebook import parametrised_qkv
from chapter3_notebook import (NOTEBOOK_SET_ORDER, Attention, convert2tensor,
                               word2index)

SEED = 3570563066  # chapter1.c and chapter3.c's DEFAULT_SEED (part 2)
MODULE_SEED = 74104689  # chapter3.c's MODULE_DEFAULT_SEED (part 3)
def part1(out):
    x = torch.tensor([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]],
                     dtype=torch.float32)
    w_key = torch.tensor([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]],
                         dtype=torch.float32)
    w_query = torch.tensor([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]],
                           dtype=torch.float32)
    w_value = torch.tensor([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]],
                           dtype=torch.float32)
    keys, querys, values = x @ w_key, x @ w_query, x @ w_value
    attn_scores = querys @ keys.T
    softmax = F.softmax(attn_scores, dim=-1)
    section(out, "worked_scores", attn_scores)
    section(out, "worked_softmax", softmax)
    section(out, "worked_outputs_exact", softmax @ values)
    scaled = F.softmax(attn_scores / math.sqrt(3), dim=-1)
    section(out, "worked_softmax_scaled", scaled)
    section(out, "worked_outputs_scaled", scaled @ values)


def part2(out):
    tokenized_sentence, embedded_tokens = embedded_tokens_of(SEED)
    section(out, "param_ids", tokenized_sentence)
    section(out, "param_x", embedded_tokens)
    # cells [T19]-[T21]
    u_q, u_k, u_v, q, k, v = parametrised_qkv(embedded_tokens)
    attn_weights_param = torch.matmul(q, k.T)
    attn_weights_param_norm = F.softmax(
        attn_weights_param / math.sqrt(32), dim=1)
    z = torch.matmul(attn_weights_param_norm, v)
    section(out, "param_u_q", u_q)
    section(out, "param_u_k", u_k)
    section(out, "param_u_v", u_v)
    section(out, "param_weights", attn_weights_param_norm)
    section(out, "param_z", z)
    # block [P3.4]: the standard form
    w_q = nn.Linear(32, 16, bias=False)
    w_k = nn.Linear(32, 16, bias=False)
    w_v = nn.Linear(32, 16, bias=False)
    qs, ks, vs = w_q(embedded_tokens), w_k(embedded_tokens), w_v(embedded_tokens)
    weights = F.softmax(qs @ ks.T / math.sqrt(16), dim=1)
    section(out, "standard_a_q", w_q.weight)
    section(out, "standard_q", qs)
    section(out, "standard_weights", weights)
    section(out, "standard_z", weights @ vs)


def part3(out):
    torch.manual_seed(MODULE_SEED)
    text = "How are you doing ? I am good and you ?"
    vocabulary = set(text.lower().split(" "))
    assert sorted(NOTEBOOK_SET_ORDER) == sorted(vocabulary)
    words = word2index()
    input_tensor = convert2tensor("How are you doing ?", words)
    # cell [S4]
    embedding = nn.Embedding(len(words), 10)
    attention = Attention(10, 10)
    embedded = embedding(input_tensor)
    # cell [S5]
    hidden_states = attention(embedded)
    attention_5 = attention.weights
    # cell [S6]
    Q = nn.Linear(10, 10)
    K = nn.Linear(10, 10)
    V = nn.Linear(10, 10)
    queries, keys, values = Q(embedded), K(embedded), V(embedded)
    # cell [S7]
    scores = torch.bmm(queries, keys.transpose(1, 2))
    scores = scores * (10 ** -0.5)
    attention_tensor = F.softmax(scores, dim=-1)
    hidden_7 = torch.bmm(attention_tensor, values)

    section(out, "module_ids", input_tensor)
    section(out, "module_embedding_weight", embedding.weight)
    section(out, "module_embedded", embedded)
    section(out, "module_q_weight", attention.Q.weight)
    section(out, "module_q_bias", attention.Q.bias)
    section(out, "module_v_bias", attention.V.bias)
    section(out, "module_weights", attention_5)
    section(out, "module_hidden", hidden_states)
    section(out, "fresh_k_weight", K.weight)
    section(out, "fresh_v_bias", V.bias)
    section(out, "fresh_queries", queries)
    section(out, "fresh_keys", keys)
    section(out, "fresh_values", values)
    section(out, "fresh_scores", scores)
    section(out, "fresh_attention", attention_tensor)
    section(out, "fresh_sums", attention_tensor.sum(dim=-1))
    section(out, "fresh_hidden", hidden_7)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: chapter3_golden.py OUTPUT_DIRECTORY")
    os.makedirs(sys.argv[1], exist_ok=True)
    out = [
        f"# written by tests/reference/chapter3_golden.py, "
        f"torch {torch.__version__}, seeds {SEED} and {MODULE_SEED}",
        "# part 1 needs no seed; part 2 starts from "
        f"torch.manual_seed({SEED}),",
        f"# part 3 from torch.manual_seed({MODULE_SEED}); section seeds "
        "holds the two",
    ]
    section(out, "seeds", torch.tensor([SEED, MODULE_SEED]))
    with torch.no_grad():
        part1(out)
        part2(out)
        part3(out)
    path = os.path.join(sys.argv[1], f"chapter3_seed{SEED}_{MODULE_SEED}.txt")
    write(path, out)


if __name__ == "__main__":
    main()
