# Chapter 1: the dot products of the eight embeddings, and the attention
# weights softmax makes of them. Two different quantities, each with its
# own colour bar: the scores from their smallest to their largest, the
# weights from 0 to 1. The right panel shares the left one's query labels
# in rows level with them; its numbers are a point smaller, to leave a
# gap around "0.00" (sizes in centimetres).
W = 16.0; H = 8.0
M1 = 5.2; M = 5.2; L = 2.2; BAR = 1.6; G = 0.3; B = 1.9
call 'figures/terminal.gp' (W) (H)
set multiplot
call 'figures/heatmap.gp' datadir.'/chapter1-scores.dat' 'Scores x_i . x_j' '%.0f' '' '' \
     (L/W) ((L+M1)/W) (B/H) ((B+M1)/H)
call 'figures/heatmap.gp' datadir.'/chapter1-weights.dat' 'Weights softmax(scores / sqrt(32))' '%.2f' '0:1' 'noqueries small' \
     ((L+M1+BAR+G)/W) ((L+M1+M+BAR+G)/W) (B/H) ((B+M)/H)
unset multiplot
