# Chapter 6: scaled dot-product attention from the words of the query
# sentence to those of the key sentence, GloVe vectors (cell [U13]). The
# colours run from 0 to the largest weight rounded up to a multiple of
# 0.05; Figure 06-additive uses the same scale (sizes in centimetres).
file = datadir.'/chapter6-dot.dat'
stats file matrix rowheaders columnheaders using 3 nooutput
range = sprintf('0:%g', ceil(STATS_max * 20) / 20.0)
C = 0.8; L = 2.5; BAR = 1.7; B = 2.5; T = 0.9
W = L + 9 * C + BAR; H = B + 8 * C + T
call 'figures/terminal.gp' (W) (H)
call 'figures/heatmap.gp' file 'Dot-product attention, softmax(q k^T / sqrt(100))' '%.2f' range '' \
     (L/W) ((L+9*C)/W) (B/H) ((B+8*C)/H)
