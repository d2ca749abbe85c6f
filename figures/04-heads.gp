# Chapter 4: the attention weights of nn.MultiheadAttention(32, 2) on the
# notebook's sentence: each head's own (block [P4.8]), their average, which
# is what the module returns by default (block [P4.7]), and that average with
# the causal mask (block [P4.10]). The two heads and their average are compared by
# colour: one scale for the three, from 0 to their largest weight rounded
# up to a multiple of 0.05; the causal average, whose first row is a
# single weight of 1, has its own, 0 to 1 (sizes in centimetres).
W = 16.0; H = 16.0
M = 5.2; L = 2.2; BAR = 1.6; G = 0.3; B = 1.9; ROW = 7.8
call 'figures/terminal.gp' (W) (H)
top = 0
do for [f in 'head1 head2 mean'] {
  stats datadir.'/chapter4-'.f.'.dat' matrix rowheaders columnheaders using 3 nooutput
  top = STATS_max > top ? STATS_max : top
}
shared = sprintf('0:%g', ceil(top * 20) / 20.0)
x2 = L + M + BAR + G
set multiplot
call 'figures/heatmap.gp' datadir.'/chapter4-head1.dat' 'Head 1' '%.2f' shared 'nobox small' \
     (L/W) ((L+M)/W) ((ROW+B)/H) ((ROW+B+M)/H)
call 'figures/heatmap.gp' datadir.'/chapter4-head2.dat' 'Head 2' '%.2f' shared 'noqueries small' \
     (x2/W) ((x2+M)/W) ((ROW+B)/H) ((ROW+B+M)/H)
call 'figures/heatmap.gp' datadir.'/chapter4-mean.dat' 'Average of the heads' '%.2f' shared 'small' \
     (L/W) ((L+M)/W) (B/H) ((B+M)/H)
call 'figures/heatmap.gp' datadir.'/chapter4-mean-causal.dat' 'Average, with the causal mask' '%.2f' '0:1' 'noqueries small' \
     (x2/W) ((x2+M)/W) (B/H) ((B+M)/H)
unset multiplot
