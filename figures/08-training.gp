# Chapter 8: the training loss of the reversal model at every step, with
# the sinusoidal positions (blue) and without (orange), the same weights
# and batches, on a logarithmic axis.
call 'figures/terminal.gp' '14' '7.5'
set logscale y
set xlabel "training step (64 sequences each)"
set ylabel "cross-entropy (padding left out)"
set format y "%g"
set grid xtics ytics lc rgb "#dddddd"
set key top right font ",8"
set xrange [0:*]
plot datadir.'/chapter8-loss-positions.dat' using 1:2 with lines lw 1.5 lc rgb "#2171b5" \
         title "with sinusoidal positions", \
     datadir.'/chapter8-loss-none.dat' using 1:2 with lines lw 1.5 lc rgb "#e6550d" \
         title "without positions"
