# chapter6_twin.py: what ./chapter6 --seed N prints in blocks [U15] and [P6.1],
# computed by PyTorch. Run it as:
#   /usr/bin/python3 tests/reference/chapter6_twin.py [N] [GLOVE_FILE]
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

QUERY = "The teacher praised a student because she improved"
KEY = "A student asked the teacher to help her improving"


def load_glove_embeddings(glove_file, words):
    """The notebook's loader, keeping only the vectors of words."""
    glove_embeddings = {}
    with open(glove_file, "r", encoding="utf-8") as file:
        for line in file:
            values = line.split()
            if values and values[0] in words:
                glove_embeddings[values[0]] = np.round(
                    np.asarray(values[1:], dtype="float32"), decimals=6)
    return glove_embeddings


def get_glove_embeddings(vocab, glove_embeddings, embed_dim):
    """The notebook's: the word, else its lower-cased form, else zeros."""
    embeddings = torch.zeros((len(vocab), embed_dim), dtype=torch.float32)
    for i, token in enumerate(vocab):
        embedding = glove_embeddings.get(token)
        if embedding is None:
            embedding = glove_embeddings.get(token.lower())
        if embedding is not None:
            embeddings[i] = torch.tensor(embedding, dtype=torch.float32)
    return embeddings


class TrainableAttention(nn.Module):
    """The notebook's module (an nn.Module here, not a DeeplayModule)."""

    def __init__(self, num_in_features=100, num_out_features=256):
        super().__init__()
        self.Wq = nn.Linear(num_in_features, num_out_features)
        self.Wk = nn.Linear(num_in_features, num_out_features)
        self.Wv = nn.Linear(num_in_features, num_out_features)

    def forward(self, queries, keys, values):
        Q, K, V = self.Wq(queries), self.Wk(keys), self.Wv(values)
        attn_scores = Q @ K.transpose(-2, -1) / (K.size(-1) ** 0.5)
        attn_matrix = F.softmax(attn_scores, dim=-1)
        return attn_matrix @ V, attn_matrix


#> additive
class AdditiveAttention(nn.Module):
    """The notebook's module with its forward corrected: every (query, key) pair."""

    def __init__(self, num_in_features=100, num_out_features=256):
        super().__init__()
        self.Wq = nn.Linear(num_in_features, num_out_features)
        self.Wk = nn.Linear(num_in_features, num_out_features)
        self.Ws = nn.Linear(num_out_features, 1)

    def forward(self, queries, keys, values):
        Q, K = self.Wq(queries), self.Wk(keys)  # (n_q, 256), (n_k, 256)
        pairs = torch.tanh(Q.unsqueeze(-2) + K.unsqueeze(-3))  # (n_q, n_k, 256)
        attn_scores = self.Ws(pairs).squeeze(-1)  # (n_q, n_k)
        attn_matrix = F.softmax(attn_scores, dim=-1)
        return attn_matrix @ values, attn_matrix
#< additive


def sentence_embeddings(glove_file, query=QUERY, key=KEY):
    query_tokens, key_tokens = query.split(), key.split()
    words = {w for t in query_tokens + key_tokens for w in (t, t.lower())}
    glove_embed = load_glove_embeddings(glove_file, words)
    with open(glove_file, encoding="utf-8") as file:  # as ./chapter6 does:
        embed_dim = len(file.readline().split()) - 1  # the first line's width
    return (get_glove_embeddings(query_tokens, glove_embed, embed_dim),
            get_glove_embeddings(key_tokens, glove_embed, embed_dim))


def modules(seed, embed_dim):
    """Built in this order after torch.manual_seed(seed), as ./chapter6 does."""
    torch.manual_seed(seed)
    trainable_attention = TrainableAttention(embed_dim, 256)  # Wq, Wk, Wv
    additive_attention = AdditiveAttention(embed_dim, 256)    # Wq, Wk, Ws
    return trainable_attention, additive_attention


if __name__ == "__main__":
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    glove_file = sys.argv[2] if len(sys.argv) > 2 else "data/glove/wink-sg-100d.txt"
    queries, keys = sentence_embeddings(glove_file)
    trainable_attention, additive_attention = modules(seed, queries.size(-1))
    with torch.no_grad():
        output, matrix = trainable_attention(queries, keys, keys)
        print("[U15] trainable attention: trainable_attn_matrix, output[:, :4]")
        print(matrix)
        print(output[:, :4])
        output, matrix = additive_attention(queries, keys, keys)
        print("[P6.1] additive attention done right: its matrix, output[:, :4]")
        print(matrix)
        print(output[:, :4])
