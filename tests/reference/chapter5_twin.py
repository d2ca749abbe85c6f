# chapter5_twin.py: what ./chapter5 --seed N prints in blocks [P5.2] to [P5.6],
# computed by PyTorch. Run it as: /usr/bin/python3 tests/reference/chapter5_twin.py N
import sys

import torch
import torch.nn as nn

seed = int(sys.argv[1]) if len(sys.argv) > 1 else 3570563066
torch.manual_seed(seed)
source = "Sorry Dave, I'm afraid I can't do that."
target = "Désolé Dave, je crains de ne pas pouvoir faire ça."
src_ids = torch.randint(0, 20000, [len(source.split(" "))])   # chapter 1
embedding = nn.Embedding(20000, 32)        # one table for both sentences
tgt_ids = torch.randint(0, 20000, [len(target.split(" "))])
encoder = nn.TransformerEncoderLayer(32, 2, 64, dropout=0.0, batch_first=True)
decoder = nn.TransformerDecoderLayer(32, 2, 64, dropout=0.0, batch_first=True)
encoder.eval()
decoder.eval()
src = embedding(src_ids).unsqueeze(0)      # (1, 8, 32)
tgt = embedding(tgt_ids).unsqueeze(0)      # (1, 10, 32)
n_t = tgt.shape[1]
tgt_mask = torch.triu(torch.full((n_t, n_t), True), diagonal=1)
torch.set_printoptions(sci_mode=False)     # 0.0001, never 1.2345e-04

with torch.no_grad():
    memory = encoder(src)
    print("[P5.2] memory = encoder(src); print(memory)")
    print(memory)
    print("[P5.3] print(decoder(tgt, memory, tgt_mask=tgt_mask))")
    print(decoder(tgt, memory, tgt_mask=tgt_mask))
    # The layer does not return its cross-attention weights: run its first
    # sub-layer again, then its second attention, asking for them.
    sa, _ = decoder.self_attn(tgt, tgt, tgt, attn_mask=tgt_mask)
    x = decoder.norm1(tgt + sa)
    _, cross = decoder.multihead_attn(x, memory, memory)
    print("[P5.4] print(cross): the decoder's cross-attention weights")
    print(cross)                           # (1, 10, 8): target x source
    encoder.norm_first = decoder.norm_first = True  # pre-norm, same weights
    memory = encoder(src)
    print("[P5.5] norm_first=True: memory = encoder(src); print(memory)")
    print(memory)
    print("[P5.6] norm_first=True: print(decoder(tgt, memory, tgt_mask=tgt_mask))")
    print(decoder(tgt, memory, tgt_mask=tgt_mask))
