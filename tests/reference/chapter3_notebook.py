"""chapter3_notebook.py: what chapter 3's third part takes from the notebook
"Studying the mechanism of self-attention": its attention module (cell [1])
and its toy vocabulary.

Imported by chapter3_twin.py and chapter3_golden.py beside it (not a
script itself).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

# The order in which the notebook's set(text.lower().split(" ")) gave its
# words, as its cell [S2] printed them (set order changes from run to run,
# so it is written out here, as in the C program).
NOTEBOOK_SET_ORDER = ["doing", "?", "you", "am", "i", "good", "are", "how",
                      "and"]


def word2index():
    """The notebook's vocabulary: BOS 0, EOS 1, then its words."""
    index2word = {0: "BOS", 1: "EOS"}
    for word in NOTEBOOK_SET_ORDER:
        index2word[len(index2word)] = word
    return {w: i for i, w in index2word.items()}


def convert2tensor(sentence, word2index):
    """Cell [S3]: the sentence's ids as a batch of one, (1, n)."""
    return torch.tensor([word2index[w] for w in sentence.lower().split(" ")],
                        dtype=torch.long).view(1, -1)


class Attention(nn.Module):
    """The notebook's module, cell [1]. forward returns the hidden states,
    as the notebook's does, and keeps the attention weights in
    self.weights (our addition, for the golden file)."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.d_in = d_in
        self.d_out = d_out
        self.Q = nn.Linear(d_in, d_out)
        self.K = nn.Linear(d_in, d_out)
        self.V = nn.Linear(d_in, d_out)

    def forward(self, x):
        queries = self.Q(x)
        keys = self.K(x)
        values = self.V(x)
        scores = torch.bmm(queries, keys.transpose(1, 2))
        scores = scores * (self.d_out ** -0.5)
        attention = F.softmax(scores, dim=-1)
        hidden_states = torch.bmm(attention, values)
        self.weights = attention
        return hidden_states
