# Chapter 4: the attention weights of nn.MultiheadAttention(32, 2) on the
# notebook's sentence: each head's own (cell [47]), their average, which is
# what the module returns by default (cell [46]), and that average with the
# causal mask (cell [49]).
call 'figures/terminal.gp' '16' '15'
set multiplot layout 2,2
call 'figures/heatmap.gp' datadir.'/chapter4-head1.dat' 'Head 1' '%.2f'
call 'figures/heatmap.gp' datadir.'/chapter4-head2.dat' 'Head 2' '%.2f'
call 'figures/heatmap.gp' datadir.'/chapter4-mean.dat' 'Average of the heads' '%.2f'
call 'figures/heatmap.gp' datadir.'/chapter4-mean-causal.dat' 'Average, with the causal mask' '%.2f'
unset multiplot
