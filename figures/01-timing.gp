# Chapter 1: the time of self-attention of n tokens (d = 32), three ways,
# on logarithmic axes, as ./chapter1 --timing measured it when the book was
# built. A dashed line of slope 2 (time proportional to n^2) runs between
# the loops and the fast products, through the geometric mean of their
# times at the largest n.
call 'figures/terminal.gp' '12' '7.5'
file = datadir.'/chapter1-timing.dat'
stats file using 1:2 nooutput
n_max = STATS_max_x
loops_max = STATS_max_y
stats file using 1:4 nooutput
guide = sqrt(loops_max * STATS_max_y)

set logscale xy
set xrange [6:2800]
set xlabel "tokens n"
set ylabel "milliseconds per call"
set format y "10^{%L}"
set xtics (8, 32, 128, 512, 2048)
set grid xtics ytics lc rgb "#dddddd"
set key top left font ",8"
plot file using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb "#2171b5" title "loops (dot products)", \
     file using 1:3 with linespoints pt 5 ps 0.5 lw 2 lc rgb "#fd8d3c" title "plain matrix products", \
     file using 1:4 with linespoints pt 9 ps 0.6 lw 2 lc rgb "#238b45" title "fast matrix products", \
     guide * (x / n_max)**2 with lines dt 2 lw 1 lc rgb "#636363" title "n^2 (slope 2)"
