#!/usr/bin/env python3
"""chapter6_golden.py: write the PyTorch reference values for
tests/test_chapter6.c.

Usage (PyTorch 1.13 on Debian is installed for /usr/bin/python3):

    /usr/bin/python3 tests/reference/chapter6_golden.py tests/golden

writes into the given directory:

  chapter6_seed1234.txt   no GloVe needed: torch.manual_seed(1234); queries
        torch.rand(8, 100) - 0.5 with row 3 set to zeros, keys
        torch.rand(9, 100) - 0.5; then the twin's TrainableAttention(100, 256)
        and AdditiveAttention(100, 256), built in that order; their weights
        and outputs, the additive scores, and the notebook's forward
        Ws(tanh(Q + K)).T on the queries and the first 8 keys; then 1000
        numbers of 5 significant digits read as float32 (round6_in) and the
        notebook's np.round(values, decimals=6) of them (round6_out).
  chapter6_glove_seed0.txt   the chapter's own numbers, from the vectors in
        data/glove/wink-sg-100d.txt (skipped, with a note, when that file
        is missing): the three attention matrices and outputs for seed 0, and
        the sum of every embedding row (the vectors themselves are not kept).
  chapter6_errors.txt   PyTorch's messages for shapes that do not
        broadcast and for the notebook's forward on sentences of lengths
        8 and 1; one case a line: "<shape a> <shape b><TAB><message>".

The modules and the GloVe reading are those of chapter6_twin.py, the script
the chapter prints.

File format of the first two (that of tests/golden.h):
    # comment lines
    section <name> <kind> <count>
    <count> values, up to 8 per line
"""
import os
import sys

import pinned_cpu  # noqa: F401  (first: OpenBLAS and torch read its pins when they load)
import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chapter6_twin import modules, sentence_embeddings  # noqa: E402
from goldenfile import section, write  # noqa: E402

SYNTHETIC_SEED = 1234
GLOVE_SEED = 0  # chapter6.c's DEFAULT_SEED
GLOVE_FILE = "data/glove/wink-sg-100d.txt"


def notebook_forward(additive, queries, keys, values):
    """The notebook's AdditiveAttention.forward, as it is written."""
    Q, K, V = additive.Wq(queries), additive.Wk(keys), values
    attn_scores = additive.Ws(torch.tanh(Q + K)).transpose(-2, -1)
    attn_matrix = F.softmax(attn_scores, dim=-1)
    return torch.matmul(attn_matrix, V), attn_matrix


def additive_scores(additive, queries, keys):
    Q, K = additive.Wq(queries), additive.Wk(keys)
    return additive.Ws(torch.tanh(Q.unsqueeze(-2) + K.unsqueeze(-3))).squeeze(-1)


def synthetic(out):
    torch.manual_seed(SYNTHETIC_SEED)
    queries = torch.rand(8, 100) - 0.5
    keys = torch.rand(9, 100) - 0.5
    queries[3] = 0.0
    trainable, additive = modules(SYNTHETIC_SEED, 100)  # seeds again
    section(out, "queries", queries)
    section(out, "keys", keys)
    section(out, "trainable_wq_weight_row0", trainable.Wq.weight[0])
    section(out, "trainable_wv_bias", trainable.Wv.bias)
    section(out, "additive_ws_weight", additive.Ws.weight)
    section(out, "additive_ws_bias", additive.Ws.bias)
    t_out, t_matrix = trainable(queries, keys, keys)
    section(out, "trainable_weights", t_matrix)
    section(out, "trainable_out", t_out)
    section(out, "additive_scores", additive_scores(additive, queries, keys))
    a_out, a_matrix = additive(queries, keys, keys)
    section(out, "additive_weights", a_matrix)
    section(out, "additive_out", a_out)
    n_out, n_matrix = notebook_forward(additive, queries, keys[:8], keys[:8])
    section(out, "notebook_weights", n_matrix)
    section(out, "notebook_out", n_out)
    # the notebook's np.round(values, decimals=6) on float32: 1000 numbers
    # of 5 significant digits, as GloVe writes them, read as float32
    text = [f"{v:.5g}" for v in (torch.rand(1000, dtype=torch.float64) * 2 - 1).tolist()]
    values = np.asarray(text, dtype="float32")
    section(out, "round6_in", torch.from_numpy(values))
    section(out, "round6_out", torch.from_numpy(np.round(values, decimals=6)))


def with_glove(out):
    queries, keys = sentence_embeddings(GLOVE_FILE)
    section(out, "query_row_sums", queries.double().sum(dim=1).float())
    section(out, "key_row_sums", keys.double().sum(dim=1).float())
    d = queries.size(-1)
    scores = queries @ keys.T / (keys.size(-1) ** 0.5)
    dot_matrix = F.softmax(scores, dim=-1)
    section(out, "dot_weights", dot_matrix)
    section(out, "dot_out", dot_matrix @ keys)
    trainable, additive = modules(GLOVE_SEED, d)
    t_out, t_matrix = trainable(queries, keys, keys)
    section(out, "trainable_weights", t_matrix)
    section(out, "trainable_out", t_out)
    a_out, a_matrix = additive(queries, keys, keys)
    section(out, "additive_weights", a_matrix)
    section(out, "additive_out", a_out)


def message(f):
    try:
        f()
    except RuntimeError as e:
        return str(e)
    raise AssertionError("no error")


def errors():
    lines = []
    for a, b in [((8, 256), (9, 256)), ((2, 3), (3, 4)), ((5, 1, 3), (4, 2)),
                 ((7,), (2, 6)), ((3, 4, 5), (2, 1, 5))]:
        text = message(lambda: torch.zeros(a) + torch.zeros(b))
        lines.append(f"{','.join(map(str, a))} {','.join(map(str, b))}\t{text}")
    torch.manual_seed(0)
    _, additive = modules(0, 100)
    queries, keys = torch.rand(8, 100), torch.rand(1, 100)
    text = message(lambda: notebook_forward(additive, queries, keys, keys))
    lines.append(f"notebook 8 1\t{text}")
    return lines


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: chapter6_golden.py OUTPUT_DIRECTORY")
    os.makedirs(sys.argv[1], exist_ok=True)
    with torch.no_grad():
        out = [f"# written by tests/reference/chapter6_golden.py, torch {torch.__version__}",
               f"# torch.manual_seed({SYNTHETIC_SEED}); random sentences, no GloVe"]
        synthetic(out)
        write(os.path.join(sys.argv[1], f"chapter6_seed{SYNTHETIC_SEED}.txt"), out)
        if os.path.exists(GLOVE_FILE):
            out = [f"# written by tests/reference/chapter6_golden.py, torch {torch.__version__}",
                   f"# the chapter's sentences, vectors from {GLOVE_FILE}, "
                   f"torch.manual_seed({GLOVE_SEED})"]
            with_glove(out)
            write(os.path.join(sys.argv[1], f"chapter6_glove_seed{GLOVE_SEED}.txt"), out)
        else:
            print(f"chapter6_golden.py: no {GLOVE_FILE} (make data fetches it); "
                  f"chapter6_glove_seed{GLOVE_SEED}.txt left as it is")
        write(os.path.join(sys.argv[1], "chapter6_errors.txt"),
              [f"# written by tests/reference/chapter6_golden.py, torch {torch.__version__}"]
              + errors())


if __name__ == "__main__":
    main()
