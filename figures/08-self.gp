# Chapter 8: the trained model's encoder self-attention on the source of
# Figure 08-cross (block [811]'s example): the last encoder layer, the mean
# of its four heads.
call 'figures/terminal.gp' '11' '11'
call 'figures/heatmap.gp' datadir.'/chapter8-self.dat' 'Encoder self-attention over the source digits' '%.2f'
