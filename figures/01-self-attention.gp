# Chapter 1: the dot products of the eight embeddings, and the attention
# weights softmax makes of them.
call 'figures/terminal.gp' '16' '8'
set multiplot layout 1,2
call 'figures/heatmap.gp' datadir.'/chapter1-scores.dat' 'Scores x_i . x_j' '%.0f'
call 'figures/heatmap.gp' datadir.'/chapter1-weights.dat' 'Weights softmax(scores / sqrt(32))' '%.2f'
unset multiplot
