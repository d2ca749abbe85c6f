# chapter1_twin.py: the notebook's cells [3] to [13], as ./chapter1 --seed N
# runs them, in PyTorch. Run it as: python3 chapter1_twin.py [N]
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 3570563066
torch.manual_seed(seed)
sentence = "Sorry Dave, I'm afraid I can't do that."

print("[T3] tokenized_sentence: one random id per word")
tokenized_sentence = torch.randint(0, 20000, [len(sentence.split(" "))])
print(tokenized_sentence)

print("[T4] embedded_tokens.shape")
embedding_layer = nn.Embedding(20000, 32)
embedded_tokens = embedding_layer(tokenized_sentence).detach()
print(embedded_tokens.shape)

print("[T5] parameters of the embedding layer")
n_parameters = sum(p.numel() for p in embedding_layer.parameters())
print(f"number of embedding parameters = {n_parameters:,}")

print("[T6] attn_weights from two loops of dot products")
n = len(tokenized_sentence)
attn_weights = torch.empty(n, n)
for i in range(n):
    for j in range(n):
        attn_weights[i, j] = torch.dot(embedded_tokens[i], embedded_tokens[j])
print(attn_weights.shape)
print(attn_weights)

print("[T8] torch.allclose(attn_weights_matmul, attn_weights, atol=1e-6)")
attn_weights_matmul = torch.matmul(embedded_tokens, embedded_tokens.T)
print(torch.allclose(attn_weights_matmul, attn_weights, atol=1e-6))

print("[T9] attn_weights_norm = softmax(attn_weights / sqrt(32))")
attn_weights_norm = F.softmax(attn_weights / math.sqrt(32), dim=1)
print(attn_weights_norm)

print("[T10] attn_weights_norm.sum(dim=1)")
print(attn_weights_norm.sum(dim=1))

print("[T11] context_weighted_embeddings.shape")
context_weighted_embeddings = torch.matmul(attn_weights_norm, embedded_tokens)
print(context_weighted_embeddings.shape)

print("[T12] context_weighted_embeddings_3, summed by hand")
context_weighted_embeddings_3 = sum(attn_weights_norm[3, i] * embedded_tokens[i]
                                    for i in range(n))
print(context_weighted_embeddings_3)

print("[T13] torch.allclose(context_weighted_embeddings_3, "
      "context_weighted_embeddings[3], atol=1e-6)")
print(torch.allclose(context_weighted_embeddings_3,
                     context_weighted_embeddings[3], atol=1e-6))
