# Chapter 2: what the causal mask does to a row's weights. The scores of
# chapter 1's sentence divided by a temperature (chapter2-temperature.dat,
# 4) before the softmax, so that each row spreads its weight over the keys
# instead of putting about 0.9 on its own token: left every query sees
# every key, right query i sees keys 0 .. i (the rest exactly 0, drawn
# grey), each row the left one's visible part rescaled to sum to one. One
# colour scale, 0 to 1, so that a shade means the same weight in both. Two
# 8 x 8 panels side by side; the right one shares the left one's query
# labels and draws the colour bar (sizes in centimetres).
W = 16.0; H = 9.0
M = 5.9; L = 2.2; G = 0.4; B = 1.9
stats datadir.'/chapter2-temperature.dat' using 1 nooutput
tau = int(STATS_min)
call 'figures/terminal.gp' (W) (H)
set multiplot
call 'figures/heatmap.gp' datadir.'/chapter2-tempered-weights.dat' \
     sprintf("Unmasked\nsoftmax(S / (%d sqrt(32)))", tau) '%.2f' '0:1' 'nobox' \
     (L/W) ((L+M)/W) (B/H) ((B+M)/H)
call 'figures/heatmap.gp' datadir.'/chapter2-tempered-causal-weights.dat' \
     "Causal\nthe same scores, masked" '%.2f' '0:1' 'noqueries masked' \
     ((L+M+G)/W) ((L+2*M+G)/W) (B/H) ((B+M)/H)
unset multiplot
