# Chapter 3: the attention module's weights over the five words of
# "How are you doing ?" (cell [7] of "Studying the mechanism of
# self-attention"; untrained, random Q, K and V).
set terminal pdfcairo size 10cm,8.5cm font "DejaVu Sans,9"
set output outfile
call 'figures/heatmap.gp' datadir.'/chapter3-module.dat' 'Attention weights, softmax(q k^T / sqrt(10))' '%.2f'
