# Chapter 1, block [P1.1]: what dividing the scores by sqrt(d) does to the
# softmax, against the width d on a logarithmic axis, as ./chapter1
# --scaling measured it: the mean largest weight of a row of 8 (left) and
# the mean entropy of a row (right), without the division and with it.
# The dotted lines are the even weights' values: 1/8, and ln 8. The keys
# sit below the panels, clear of the lines.
call 'figures/terminal.gp' '16' '8'
file = datadir.'/chapter1-scaling.dat'
set multiplot layout 1,2
set logscale x 2
set xrange [3:1400]
set xtics (4, 16, 64, 256, 1024)
set xlabel "width d" offset 0,0.4
set grid xtics ytics lc rgb "#dddddd"
set key below font ",8" maxrows 3 height 0.6
set ylabel "largest weight of a row"
set yrange [0:1]
plot file using 1:5 with linespoints pt 7 ps 0.5 lw 2 lc rgb "#d94801" title "softmax(s)", \
     file using 1:7 with linespoints pt 5 ps 0.5 lw 2 lc rgb "#2171b5" title "softmax(s / sqrt(d))", \
     1.0 / 8 with lines dt 3 lw 1 lc rgb "#636363" title "even weights, 1/8"
set ylabel "entropy of a row (nats)"
set yrange [0:2.3]
plot file using 1:4 with linespoints pt 7 ps 0.5 lw 2 lc rgb "#d94801" title "softmax(s)", \
     file using 1:6 with linespoints pt 5 ps 0.5 lw 2 lc rgb "#2171b5" title "softmax(s / sqrt(d))", \
     log(8) with lines dt 3 lw 1 lc rgb "#636363" title "even weights, ln 8"
unset multiplot
