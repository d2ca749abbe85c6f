# chapter2_twin.py: the notebook's cells [14] to [18], as ./chapter2 --seed N
# runs them, in PyTorch. Run it as: python3 chapter2_twin.py [N]
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 3570563066
torch.manual_seed(seed)
sentence = "Sorry Dave, I'm afraid I can't do that."
tokenized_sentence = torch.randint(0, 20000, [len(sentence.split(" "))])
embedded_tokens = nn.Embedding(20000, 32)(tokenized_sentence).detach()
attn_weights = torch.matmul(embedded_tokens, embedded_tokens.T)   # chapter 1
n = len(tokenized_sentence)

print("[T14] causal_mask: True above the diagonal")
causal_mask = torch.triu(torch.ones(n, n), diagonal=1).bool()
print(causal_mask)

print("[T15] causal_attn_weights[0]: masked_fill with -1e10")
causal_attn_weights = attn_weights.masked_fill(causal_mask, -1e10)
print(causal_attn_weights[0])

print("[T16] causal_attn_weights_norm and its row sums")
causal_attn_weights_norm = F.softmax(causal_attn_weights / math.sqrt(32), dim=1)
print(causal_attn_weights_norm)
print(causal_attn_weights_norm.sum(dim=1))

print("[T17] causal_context_weighted_embeddings.shape")
causal_context_weighted_embeddings = torch.matmul(causal_attn_weights_norm,
                                                  embedded_tokens)
print(causal_context_weighted_embeddings.shape)

print("[T18] causal_context_weighted_embeddings_3 from tokens 0..3, "
      "allclose to row 3")
causal_context_weighted_embeddings_3 = sum(
    causal_attn_weights_norm[3, i] * embedded_tokens[i] for i in range(4))
print(causal_context_weighted_embeddings_3)
print(torch.allclose(causal_context_weighted_embeddings_3,
                     causal_context_weighted_embeddings[3]))
