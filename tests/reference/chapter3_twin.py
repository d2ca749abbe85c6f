# chapter3_twin.py: what ./chapter3 prints, in PyTorch, part by part: the
# worked example of "An illustrated guide to Attention Mechanism", the
# parametrised self-attention of "Attention and Transformers" (seeded as
# ./chapter3 --seed N), and the attention module of "Studying the mechanism
# of self-attention" (its own random seed). Run it as:
# python3 chapter3_twin.py [N]
import math
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

from chapter3_notebook import Attention, convert2tensor, word2index

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 3570563066
torch.set_grad_enabled(False)


def show_list(values, decimals):
    print("[" + ", ".join(f"{v:.{decimals}f}" for v in values.tolist()) + "]")


# Part 1: the worked example, three inputs of width 4.
print("[G1] step 1: inputs, one per row")
x = torch.tensor([[1, 0, 1, 0], [0, 2, 0, 2], [1, 1, 1, 1]], dtype=torch.float32)
print(x)

print("[G2] step 2: weights for key, query and value, each 4x3")
w_key = torch.tensor([[0, 0, 1], [1, 1, 0], [0, 1, 0], [1, 1, 0]], dtype=torch.float32)
w_query = torch.tensor([[1, 0, 1], [1, 0, 0], [0, 0, 1], [0, 1, 1]], dtype=torch.float32)
w_value = torch.tensor([[0, 2, 0], [0, 3, 0], [1, 0, 3], [1, 1, 0]], dtype=torch.float32)
for name, w in (("w_key", w_key), ("w_query", w_query), ("w_value", w_value)):
    print(name)
    print(w)

print("[G3] step 3: keys = x @ w_key, querys = x @ w_query, values = x @ w_value")
keys, querys, values = x @ w_key, x @ w_query, x @ w_value
for name, t in (("keys", keys), ("querys", querys), ("values", values)):
    print(name)
    print(t)

print("[G4] step 4: attention scores, querys @ keys.T")
attn_scores = querys @ keys.T
print("query 1 with keys 1, 2, 3: " + str([int(s) for s in attn_scores[0]]))
print(attn_scores)

print("[P3.1] the outputs with the exact softmax, softmax @ values")
attn_scores_softmax = F.softmax(attn_scores, dim=-1)
outputs = attn_scores_softmax @ values
print(outputs)
for j, output in enumerate(outputs):
    print(f"Output {j + 1}: ", end="")
    show_list(output, 4)
print("They differ from steps 7 and 8 because the article rounded the softmax to one")
print("decimal before weighting the values.")
rounded = attn_scores_softmax.round(decimals=1)
print("With the softmax rounded honestly, output 1 would be ", end="")
show_list((rounded @ values)[0], 1)

#> scaled
print("[P3.2] scaled by sqrt(d_k), softmax(attn_scores / sqrt(3), dim=-1)")
print("attn_scores / sqrt(3)")
print(attn_scores / math.sqrt(3))
print("softmax")
softmax_scaled = F.softmax(attn_scores / math.sqrt(3), dim=-1)
print(softmax_scaled)
print("outputs")
print(softmax_scaled @ values)
#< scaled

# Part 2: chapter 1's tokens and embeddings, then three random (n, n) mixers.
torch.manual_seed(seed)
sentence = "Sorry Dave, I'm afraid I can't do that."
tokenized_sentence = torch.randint(0, 20000, [len(sentence.split(" "))])
embedded_tokens = nn.Embedding(20000, 32)(tokenized_sentence)
n_tokens = len(tokenized_sentence)

print("[T19] u_q = torch.rand(n_tokens, n_tokens) (then u_k and u_v)")
u_q = torch.rand(n_tokens, n_tokens)
u_k = torch.rand(n_tokens, n_tokens)
u_v = torch.rand(n_tokens, n_tokens)
print(u_q)

print("[T20] q.shape == k.shape == v.shape == embedded_tokens.shape")
q = torch.matmul(u_q, embedded_tokens)
k = torch.matmul(u_k, embedded_tokens)
v = torch.matmul(u_v, embedded_tokens)
print(q.shape == k.shape == v.shape == embedded_tokens.shape)

print("[T21] context_weighted_embeddings_param.shape")
attn_weights_param = torch.matmul(q, k.T)
attn_weights_param_norm = F.softmax(attn_weights_param / math.sqrt(32), dim=1)
context_weighted_embeddings_param = torch.matmul(attn_weights_param_norm, v)
print(context_weighted_embeddings_param.shape)

print("[T22] torch.allclose(z_3 summed by hand, context_weighted_embeddings_param[3])")
z_3 = sum(attn_weights_param_norm[3, i] * v[i] for i in range(n_tokens))
print(torch.allclose(z_3, context_weighted_embeddings_param[3]))


# Part 3: the other notebook's module (chapter3_notebook.py), after its own
# random seed.
torch.manual_seed(74104689)
# The words in the order the notebook's set(...) gave them when it ran.
words = word2index()

print("[S3] convert2tensor and convert2sentence")
sentence = "How are you doing ?"
input_tensor = convert2tensor(sentence, words)
print("Input tensor:", input_tensor)
print("Tensor size:", input_tensor.size())
print("Output sentence:", sentence)

print("[S4] embedded = embedding(input_tensor)")
embedding = nn.Embedding(len(words), 10)
attention = Attention(10, 10)
embedded = embedding(input_tensor)
print(embedded)
print("Tensor size:", embedded.size())

print("[S5] hidden_states = attention(embedded)")
hidden_states = attention(embedded)
print(hidden_states)
print(hidden_states.size())

print("[S6] queries, keys, values from fresh Q, K, V")
Q, K, V = nn.Linear(10, 10), nn.Linear(10, 10), nn.Linear(10, 10)
queries, keys, values = Q(embedded), K(embedded), V(embedded)
print(queries.size())
print(keys.size())
print(values.size())

print("[S7] scores, softmax and hidden states, step by step")
scores = torch.bmm(queries, keys.transpose(1, 2))
print(scores.size())
print()
scores = scores * (10 ** -0.5)
attention = F.softmax(scores, dim=-1)
print(attention.size())
print("Sum of the rows of the last dimension:\n\t", attention.sum(dim=-1), sep="")
print(attention)
print()
hidden_states = torch.bmm(attention, values)
print(hidden_states.size())
print(hidden_states)
