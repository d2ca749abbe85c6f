# Chapter 2: the attention weights of chapter 1 (every query sees every key)
# beside the causal ones (query i sees keys 0 .. i; the rest are exactly 0),
# on one colour scale, 0 to 1, so that a shade means the same weight in both.
# Two 8 x 8 panels side by side; the right one shares the left one's query
# labels and draws the colour bar (sizes in centimetres).
W = 16.0; H = 8.6
M = 5.9; L = 2.2; G = 0.4; B = 1.9
call 'figures/terminal.gp' (W) (H)
set multiplot
call 'figures/heatmap.gp' datadir.'/chapter2-weights.dat' 'Unmasked weights (chapter 1)' '%.2f' '0:1' 'nobox' \
     (L/W) ((L+M)/W) (B/H) ((B+M)/H)
call 'figures/heatmap.gp' datadir.'/chapter2-causal-weights.dat' 'Causal weights' '%.2f' '0:1' 'noqueries' \
     ((L+M+G)/W) ((L+2*M+G)/W) (B/H) ((B+M)/H)
unset multiplot
