# chapter4_twin.py: what ./chapter4 --seed N prints in blocks [P4.9] to [P4.13],
# computed by PyTorch. Run it as: python3 chapter4_twin.py N
import sys

import torch
import torch.nn as nn

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 3570563066
torch.manual_seed(seed)
sentence = "Sorry Dave, I'm afraid I can't do that."
ids = torch.randint(0, 20000, [len(sentence.split(" "))])   # chapter 1
embedding = nn.Embedding(20000, 32)
mha = nn.MultiheadAttention(32, 2, batch_first=True)
x = embedding(ids).unsqueeze(0)            # (1, 8, 32): a batch of one
causal = torch.triu(torch.full((8, 8), True), diagonal=1)
torch.set_printoptions(sci_mode=False)     # 0.0001, never 1.2345e-04

with torch.no_grad():
    out, weights = mha(x, x, x)            # weights averaged over the heads
    print("[P4.9] out, weights = mha(x, x, x); print(out)")
    print(out)
    print("[P4.10] print(weights): averaged over the heads")
    print(weights)
    _, per_head = mha(x, x, x, average_attn_weights=False)
    print("[P4.11] mha(x, x, x, average_attn_weights=False): each head's weights")
    print(per_head[0])                     # (2, 8, 8): one matrix per head
    out, weights = mha(x, x, x, attn_mask=causal)
    print("[P4.12] out, weights = mha(x, x, x, attn_mask=causal); print(out)")
    print(out)
    print("[P4.13] print(weights): with the causal mask")
    print(weights)
