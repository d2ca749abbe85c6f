# Chapter 8: the trained model's encoder self-attention on the source of
# Figure 08-cross (block [P8.11]'s example): the first encoder layer, the
# mean of its four heads; on the same colour scale as 08-cross, 0 to 1, so
# that the shades of the two figures compare.
call 'figures/terminal.gp' '11' '11'
call 'figures/heatmap.gp' datadir.'/chapter8-self.dat' \
     'Encoder self-attention over the source digits' '%.2f' '0:1' 'level'
