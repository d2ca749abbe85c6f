# Chapter 6: additive attention over every (query, key) pair, untrained
# (block [P6.1]), on the colour scale of the GloVe dot-product weights of
# Figure 06-dot-product (0 to their largest, rounded up to a multiple of
# 0.05), so that the two can be compared by colour: a scale stretched over
# this matrix's own narrow range would turn its rounding-level differences
# into structure (sizes in centimetres).
stats datadir.'/chapter6-dot.dat' matrix rowheaders columnheaders using 3 nooutput
range = sprintf('0:%g', ceil(STATS_max * 20) / 20.0)
file = datadir.'/chapter6-additive.dat'
C = 0.8; L = 2.5; BAR = 1.7; B = 2.5; T = 0.9
W = L + 9 * C + BAR; H = B + 8 * C + T
call 'figures/terminal.gp' (W) (H)
call 'figures/heatmap.gp' file 'Additive attention, softmax(w . tanh(W_q q + W_k k + b))' '%.2f' range '' \
     (L/W) ((L+9*C)/W) (B/H) ((B+8*C)/H)
