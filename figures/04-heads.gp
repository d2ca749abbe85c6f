# Chapter 4: the weights of the two heads of nn.MultiheadAttention(32, 2),
# causal, on one sequence of the task of block [P4.2] (the previous
# position's content and the first position's, side by side), untrained
# (top) and after training (bottom). One colour scale, 0 to 1, for the
# four; masked cells grey (sizes in centimetres).
W = 16.0; H = 15.3
M = 5.2; L = 2.2; BAR = 1.6; G = 0.3; B = 1.3; ROW = 7.5
call 'figures/terminal.gp' (W) (H)
x2 = L + M + BAR + G
dat = datadir.'/chapter4-'
LEFT = 'nobox small level masked'
RIGHT = 'noqueries small level masked'
set multiplot
call 'figures/heatmap.gp' dat.'untrained1.dat' 'Head 1, untrained' '%.2f' '0:1' LEFT \
     (L/W) ((L+M)/W) ((ROW+B)/H) ((ROW+B+M)/H)
call 'figures/heatmap.gp' dat.'untrained2.dat' 'Head 2, untrained' '%.2f' '0:1' RIGHT \
     (x2/W) ((x2+M)/W) ((ROW+B)/H) ((ROW+B+M)/H)
call 'figures/heatmap.gp' dat.'trained1.dat' 'Head 1, trained' '%.2f' '0:1' LEFT \
     (L/W) ((L+M)/W) (B/H) ((B+M)/H)
call 'figures/heatmap.gp' dat.'trained2.dat' 'Head 2, trained' '%.2f' '0:1' RIGHT \
     (x2/W) ((x2+M)/W) (B/H) ((B+M)/H)
unset multiplot
