"""transformers_notebook.py: the code of the notebook "Attention and
Transformers" that the golden scripts of chapters 1 to 5 run again: its
sentence's token ids and their embedding, its parametrised queries, keys
and values (cells [T19], [T20]), its attention (cell [T23]) and its
multi-head attention (cell [T24]), as the notebook wrote them.

Imported by the *_golden.py scripts beside it (not a script itself). The
twins (chapterN_twin.py) keep their own copy of these lines: each is a
script to run, and to read in the book, on its own.
"""
import math

import torch

EMBEDDING_DIM = 32
SENTENCE = "Sorry Dave, I'm afraid I can't do that."


def embedded_tokens(seed):
    """torch.manual_seed(seed), then the sentence's token ids and their
    embedding, drawn as the notebook draws them: (ids, embedded)."""
    torch.manual_seed(seed)
    tokenized_sentence = torch.randint(0, 20000, [len(SENTENCE.split(" "))])
    embedding_layer = torch.nn.Embedding(20000, EMBEDDING_DIM)
    return tokenized_sentence, embedding_layer(tokenized_sentence)


def parametrised_qkv(embedded_tokens):
    """Cells [T19] and [T20]: three random (n, n) mixers, and the queries,
    keys and values they make of the embedding: (u_q, u_k, u_v, q, k, v)."""
    n_tokens = len(embedded_tokens)
    u_q = torch.rand(n_tokens, n_tokens)
    u_k = torch.rand(n_tokens, n_tokens)
    u_v = torch.rand(n_tokens, n_tokens)
    q = torch.matmul(u_q, embedded_tokens)
    k = torch.matmul(u_k, embedded_tokens)
    v = torch.matmul(u_v, embedded_tokens)
    return u_q, u_k, u_v, q, k, v


def attention(query, keys, values, causal_masking=False):
    """Cell [T23]: the scores scaled by the embedding's width, whatever
    the query's."""
    n_tokens, embedding_dim = query.shape
    attn_weights = torch.matmul(query, keys.T) / math.sqrt(EMBEDDING_DIM)
    if causal_masking:
        mask = torch.triu(torch.full((n_tokens, n_tokens), True),
                          diagonal=1)
        attn_weights = attn_weights.masked_fill(mask, -1e10)
    attn_weights_norm = attn_weights.softmax(dim=1)
    return torch.matmul(attn_weights_norm, values)


def multi_head_attention(x_q, x_k, x_v, n_heads, causal_masking=False,
                         drawn=None):
    """Cell [T24]. The notebook takes the shape from its global
    embedded_tokens, which every call here has the shape of: x_q's. drawn,
    a dict when given, gets the matrices it drew (u_q, u_k, u_v, w_out)."""
    n_tokens, embedding_dim = x_q.shape
    u_q = torch.rand(n_heads, n_tokens, n_tokens)
    u_k = torch.rand(n_heads, n_tokens, n_tokens)
    u_v = torch.rand(n_heads, n_tokens, n_tokens)
    attn_head_outputs = torch.concat(
        [attention(u_q[h] @ x_q, u_k[h] @ x_k, u_v[h] @ x_v)
         for h in range(n_heads)], dim=1)
    w_out = torch.rand(n_heads * embedding_dim, embedding_dim,
                       requires_grad=True)
    if drawn is not None:
        drawn.update(u_q=u_q, u_k=u_k, u_v=u_v, w_out=w_out)
    return torch.matmul(attn_head_outputs, w_out)
