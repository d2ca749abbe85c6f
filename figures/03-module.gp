# Chapter 3: the attention module's weights over the five words of
# "How are you doing ?" (cell [7] of "Studying the mechanism of
# self-attention"; untrained, random Q, K and V).
call 'figures/terminal.gp' '10' '8.5'
call 'figures/heatmap.gp' datadir.'/chapter3-module.dat' 'Attention weights, softmax(q k^T / sqrt(10))' '%.2f'
