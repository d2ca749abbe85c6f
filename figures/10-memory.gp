# Chapter 10: naive and tiled attention (one head, d = 64, forward) against
# the number of tokens n, on logarithmic axes: the time of a pass (left)
# and the peak memory of the process that ran it (right), as ./chapter10
# measured them when the book was built. Naive attention stops where its
# n x n weights would pass the program's --max-memory (its points end
# there); tiled attention runs to n = 65,536. A dashed guide of slope 2
# (n^2) runs four times above the highest point of either curve relative
# to n^2, so that it lies clear of both, and one of slope 1 (tiled memory,
# linear in n) a third of tiled attention's last memory point, below its
# points. The axes leave room around the points.
call 'figures/terminal.gp' '14' '6.5'
file = datadir.'/chapter10-memory.dat'
stats file using 1:4 nooutput
n_max = STATS_max_x
tiled_fastest = STATS_min_y
tiled_time = STATS_max_y
# the largest time / n^2 of either kernel (gnuplot skips naive's NaN rows)
stats file using ($2 / $1**2) nooutput
per_n2 = STATS_max
stats file using ($4 / $1**2) nooutput
per_n2 = STATS_max > per_n2 ? STATS_max : per_n2
stats file using 1:5 nooutput
tiled_mem = STATS_max_y

set multiplot layout 1,2
set logscale xy
set xrange [180:130000]
set xlabel "tokens n"
set xtics ("256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536)
set format y "10^{%L}"
set grid xtics ytics lc rgb "#dddddd"
set key top left font ",8"

set ylabel "milliseconds per pass"
set yrange [tiled_fastest / 3:tiled_time * 20]
plot file using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb "#fd8d3c" title "naive", \
     file using 1:4 with linespoints pt 5 ps 0.5 lw 2 lc rgb "#238b45" title "tiled", \
     4 * per_n2 * x**2 with lines dt 2 lw 1 lc rgb "#636363" title "n^2"

set ylabel "peak memory (MB)"
set format y "%g"
set yrange [*:*]
plot file using 1:3 with linespoints pt 7 ps 0.5 lw 2 lc rgb "#fd8d3c" title "naive", \
     file using 1:5 with linespoints pt 5 ps 0.5 lw 2 lc rgb "#238b45" title "tiled", \
     tiled_mem / 3 * (x / n_max) with lines dt 2 lw 1 lc rgb "#636363" title "n"
unset multiplot
