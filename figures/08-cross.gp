# Chapter 8: the trained model's cross-attention on one held-out source
# (block [P8.11]): each token the decoder writes, the digits reversed and
# then EOS (queries), over the source digits (keys); the last decoder
# layer, the mean of its four heads. Reversal puts the weight on the
# anti-diagonal. Colours from 0 to 1, as in 08-self.
call 'figures/terminal.gp' '11' '12'
call 'figures/heatmap.gp' datadir.'/chapter8-cross.dat' 'Cross-attention: output tokens over source digits' '%.2f' '0:1'
