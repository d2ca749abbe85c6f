# Chapter 8: the trained models' cross-attention on one held-out source
# (block [P8.11]), side by side: left the model with positions, right the
# one without, the same source and the same target fed in. Each token the
# decoder writes, the digits reversed and then EOS (queries, the same rows
# in both), over the source digits (keys); the last decoder layer, the
# mean of its four heads. With positions the weight runs along the
# anti-diagonal; without them a digit is only its value, and the columns
# of equal digits are equal. Colours from 0 to 1, as in 08-self. Sizes in
# centimetres: the cells square, 0.7 cm.
W = 16.0; H = 8.6
L = 1.7; M = 5.6; MH = 6.3; G = 0.4; B = 1.2
call 'figures/terminal.gp' (W) (H)
x2 = L + M + G
set multiplot
call 'figures/heatmap.gp' datadir.'/chapter8-cross.dat' 'With positions' '%.2f' '0:1' \
     'nobox level small' (L/W) ((L+M)/W) (B/H) ((B+MH)/H)
call 'figures/heatmap.gp' datadir.'/chapter8-cross-none.dat' 'Without positions' '%.2f' '0:1' \
     'noqueries level small' (x2/W) ((x2+M)/W) (B/H) ((B+MH)/H)
unset multiplot
